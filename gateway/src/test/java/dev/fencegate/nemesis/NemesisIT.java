package dev.fencegate.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.FenceSchema;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TcpRelay;
import dev.fencegate.testing.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two gateway processes sharing one fence schema in front of a store that holds each write a
 * little, writers pinned to each, and a nemesis that pauses a gateway (SIGSTOP) for longer than
 * a registration lives, terminates the gateways' PostgreSQL backends, and cuts one gateway from
 * PostgreSQL. Afterwards the store's apply log is read against what the workers were told.
 *
 * <p>A short run in every build; {@code -Dfencegate.nemesis.seconds=600} for a long one, and
 * {@code -Dfencegate.nemesis.seed=N} to replay a schedule (timing still varies between runs).
 */
@ExtendWith(NoNettyLeaks.class)
class NemesisIT {

    private static final long SEED = Long.getLong("fencegate.nemesis.seed", System.nanoTime());
    private static final Duration RUN = Duration.ofSeconds(Long.getLong("fencegate.nemesis.seconds", 35));
    /** A registration lives four upstream timeouts: a pause of five to seven seconds outlasts it. */
    private static final Duration UPSTREAM_TIMEOUT = Duration.ofSeconds(1);
    private static final int RESOURCES = 3;
    private static final int WRITERS_PER_GATEWAY = 3;
    private static final int MAX_WRITES_PER_WRITER = 100_000;

    private static MemoryObjectStore store;
    private static TcpRelay relay;
    private static FenceSchema fences;
    private static final List<GatewayProcess> gateways = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        String schema = TestPostgres.newSchema("nemesis");
        fences = new FenceSchema(schema);
        var server = TestPostgres.server();
        store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback().withWriteDelay(Duration.ZERO, Duration.ofMillis(30)));
        relay = TcpRelay.toJdbc(server.url());
        // The first migrates the schema alone; the second reaches PostgreSQL through the relay the nemesis cuts.
        for (String url : List.of(server.url(), relay.jdbcUrl(server.url()))) {
            DatabaseConfig database = new DatabaseConfig(url, schema, server.user(), server.password(), TwoGateways.POOL_SIZE,
                    Duration.ofSeconds(2));
            gateways.add(GatewayProcess.start(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), store.port(), database,
                    "--db-pool-size", Integer.toString(TwoGateways.POOL_SIZE), "--upstream-timeout", TwoGateways.seconds(UPSTREAM_TIMEOUT),
                    "--client-idle-timeout", "30s"));
        }
    }

    @AfterAll
    static void stop() {
        gateways.forEach(GatewayProcess::close);
        if (relay != null) {
            relay.close();
        }
        if (store != null) {
            store.close();
        }
    }

    @Test
    void tokensNeverGoDownAndRefusedWritesNeverLandWhileGatewaysPauseLoseBackendsAndArePartitioned() throws Exception {
        System.out.printf("nemesis: seed %d (-Dfencegate.nemesis.seed=%d), %d s%n", SEED, SEED, RUN.toSeconds());
        long end = System.nanoTime() + RUN.toNanos();
        Nemesis nemesis = new Nemesis(SEED, end);
        Thread faults = new Thread(nemesis::run, "nemesis");
        faults.start();
        List<Sent> sent = runWriters(end);
        faults.join(Duration.ofSeconds(30).toMillis());
        assertThat(faults.isAlive()).as("the nemesis stopped by itself").isFalse();
        // A write whose outcome is unknown (504, no answer) may still land within the upstream timeout.
        Thread.sleep(UPSTREAM_TIMEOUT.multipliedBy(3).toMillis());
        judge(store.applied(), sent, nemesis);
    }

    /** One write as its worker saw it. */
    record Sent(String id, String path, long token, Kind kind, int gateway, int status) {

        boolean acknowledged() {
            return status / 100 == 2;
        }

        /** Answered "not done": the gateway refused it, or gave up on it before it reached the store. */
        boolean refused() {
            return status >= 400 && status != 502 && status != 504;
        }
    }

    enum Kind { CURRENT, RAISED, STALE, LATE_BODY }

    private List<Sent> runWriters(long end) throws InterruptedException {
        Map<String, AtomicLong> leases = new TreeMap<>();
        for (int r = 0; r < RESOURCES; r++) {
            leases.put("/nemesis/r" + r, new AtomicLong(1));
        }
        List<String> paths = List.copyOf(leases.keySet());
        List<Sent> sent = Collections.synchronizedList(new ArrayList<>());
        int writers = WRITERS_PER_GATEWAY * gateways.size();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        for (int w = 0; w < writers; w++) {
            int writer = w;
            pool.execute(() -> new Writer(writer, writer % gateways.size(), new java.util.Random(SEED * 31 + writer), paths, leases, sent)
                    .run(end));
        }
        pool.shutdown();
        // A writer's last write may wait out a pause and a late body: bounded well past the run.
        assertThat(pool.awaitTermination(RUN.toSeconds() + 90, TimeUnit.SECONDS)).as("writers stopped").isTrue();
        return List.copyOf(sent);
    }

    /** Mostly the current holder; sometimes a new grant, a holder that lost its lease, or a worker slow to send its body. */
    private record Writer(int number, int gateway, java.util.Random random, List<String> paths, Map<String, AtomicLong> leases,
                          List<Sent> sent) {

        void run(long end) {
            var http = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1).build();
            int port = gateways.get(gateway).port();
            for (int i = 0; i < MAX_WRITES_PER_WRITER && System.nanoTime() < end; i++) {
                String path = paths.get(random.nextInt(paths.size()));
                AtomicLong lease = leases.get(path);
                int roll = random.nextInt(100);
                Kind kind = roll < 10 ? Kind.RAISED : roll < 25 ? Kind.STALE : roll < 37 ? Kind.LATE_BODY : Kind.CURRENT;
                long token = switch (kind) {
                    case RAISED -> lease.incrementAndGet();
                    case STALE -> Math.max(1, lease.get() - 1 - random.nextInt(2));
                    case CURRENT, LATE_BODY -> lease.get();
                };
                String id = "w" + number + "-" + i;
                int status = kind == Kind.LATE_BODY ? lateBody(port, path, token, id) : Wire.put(http, port, path, token, id, 0);
                sent.add(new Sent(id, path, token, kind, gateway, status));
            }
        }

        /** The head now, the body after a short or a long wait, both well within the client idle timeout. */
        private int lateBody(int port, String path, long token, String id) {
            long delay = random.nextInt(4) == 0 ? 3_000 + random.nextInt(4_000) : 50 + random.nextInt(950);
            try (Wire.LateBody write = Wire.LateBody.open(port, path, token, id)) {
                Thread.sleep(delay);
                write.sendBody();
                return write.status(Duration.ofSeconds(30));
            } catch (java.io.IOException e) {
                return Wire.NO_ANSWER;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Wire.NO_ANSWER;
            }
        }
    }

    /** Faults in turn, with random pauses between: a stopped gateway, killed backends, a partition. */
    private static final class Nemesis {

        private final java.util.Random random;
        private final long end;
        private int pauses;
        private int backendKills;
        private int backendsTerminated;
        private int cuts;

        Nemesis(long seed, long end) {
            this.random = new java.util.Random(seed);
            this.end = end;
        }

        void run() {
            try {
                for (int step = 0; step < 10_000 && System.nanoTime() < end; step++) {
                    Thread.sleep(1_000 + random.nextInt(2_000));
                    if (System.nanoTime() >= end) {
                        return;
                    }
                    switch (step % 3) {
                        case 0 -> pause(gateways.get(random.nextInt(gateways.size())));
                        case 1 -> {
                            backendKills++;
                            backendsTerminated += fences.terminateGatewayBackends();
                        }
                        default -> cut();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void pause(GatewayProcess gateway) throws InterruptedException {
            pauses++;
            gateway.pause();
            try {
                Thread.sleep(5_000 + random.nextInt(2_000));
            } finally {
                gateway.resume();
            }
        }

        private void cut() throws InterruptedException {
            cuts++;
            relay.cut();
            try {
                Thread.sleep(3_000 + random.nextInt(3_000));
            } finally {
                relay.restore();
            }
        }

        @Override
        public String toString() {
            return pauses + " pauses, " + backendKills + " backend kills (" + backendsTerminated + " backends), " + cuts + " cuts";
        }
    }

    private static void judge(List<AppliedWrite> applied, List<Sent> sent, Nemesis nemesis) {
        Set<String> appliedIds = applied.stream().map(AppliedWrite::requestId).collect(Collectors.toSet());
        List<ApplyOrder.Regression> regressions = ApplyOrder.regressions(applied);
        Map<String, Sent> byId = sent.stream().collect(Collectors.toMap(Sent::id, s -> s));
        List<Sent> refusedButApplied = sent.stream().filter(Sent::refused).filter(s -> appliedIds.contains(s.id())).toList();
        List<Sent> acknowledgedButMissing = sent.stream().filter(Sent::acknowledged).filter(s -> !appliedIds.contains(s.id())).toList();
        long acknowledged = sent.stream().filter(Sent::acknowledged).count();
        long stale = sent.stream().filter(s -> s.status() == 412).count();
        System.out.printf("nemesis: seed %d, %d s, %s; %d writes, %d applied, %d acknowledged, %d refused stale; statuses %s;"
                        + " by kind %s; tokens going down %d, refused but applied %d, acknowledged but missing %d%n",
                SEED, RUN.toSeconds(), nemesis, sent.size(), applied.size(), acknowledged, stale,
                new TreeMap<>(sent.stream().collect(Collectors.groupingBy(Sent::status, Collectors.counting()))),
                new TreeMap<>(sent.stream().collect(Collectors.groupingBy(Sent::kind, Collectors.counting()))),
                regressions.size(), refusedButApplied.size(), acknowledgedButMissing.size());
        regressions.stream().limit(10).forEach(regression -> System.out.printf("nemesis: %s; the late write: %s%n", regression,
                byId.get(regression.late().requestId())));

        assertThat(regressions).as("seed %d: tokens going down in the store's apply order", SEED).isEmpty();
        assertThat(refusedButApplied).as("seed %d: writes answered 4xx/5xx that the store applied", SEED).isEmpty();
        assertThat(acknowledgedButMissing).as("seed %d: writes answered 2xx that the store never applied", SEED).isEmpty();
        assertThat(nemesis.pauses).as("the run paused a gateway").isPositive();
        assertThat(nemesis.cuts).as("the run cut a gateway from PostgreSQL").isPositive();
        assertThat(nemesis.backendKills).as("the run terminated backends").isPositive();
        assertThat(acknowledged).as("the run exercised admissions").isGreaterThan(20);
        assertThat(stale).as("the run exercised refusals").isPositive();
    }
}
