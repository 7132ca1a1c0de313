package dev.fencegate.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
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
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two gateway processes sharing one fence schema in front of a store that holds each write a
 * little, writers pinned to each, and a nemesis ({@link Faults}) that pauses a gateway for
 * longer than a registration lives, terminates the gateways' PostgreSQL backends, and cuts one
 * gateway from PostgreSQL. Afterwards the store's apply log is read against what the workers
 * were told ({@link History}).
 *
 * <p>A short run in every build; {@code -Dfencegate.nemesis.seconds=600} for a long one, and
 * {@code -Dfencegate.nemesis.seed=N} to replay a run's choices (timing still varies).
 */
@ExtendWith(NoNettyLeaks.class)
class NemesisIT {

    private static final long SEED = Long.getLong("fencegate.nemesis.seed", System.nanoTime());
    private static final Duration RUN = Duration.ofSeconds(Long.getLong("fencegate.nemesis.seconds", 30));
    /** A registration lives four upstream timeouts today: the nemesis's pauses outlast it. */
    private static final Duration UPSTREAM_TIMEOUT = Duration.ofSeconds(1);
    private static final int RESOURCES = 3;
    private static final int WRITERS_PER_GATEWAY = 3;

    private static final List<GatewayProcess> gateways = new ArrayList<>();
    private static MemoryObjectStore store;
    private static TcpRelay relay;
    private static FenceSchema fences;

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
                    "--upstream-timeout", TwoGateways.seconds(UPSTREAM_TIMEOUT), "--client-idle-timeout", "30s"));
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
        Faults faults = new Faults(gateways, relay, fences, SEED, end);
        Thread nemesis = new Thread(faults, "nemesis");
        nemesis.start();
        List<Sent> sent = runWriters(end);
        nemesis.join(Duration.ofSeconds(30).toMillis());
        assertThat(nemesis.isAlive()).as("the nemesis stopped by itself").isFalse();
        // A write whose outcome is unknown (504, no answer) may still land within the upstream timeout.
        Thread.sleep(UPSTREAM_TIMEOUT.multipliedBy(3).toMillis());

        History history = new History(store.applied(), sent);
        System.out.printf("nemesis: seed %d, %d s, %s; %s%n", SEED, RUN.toSeconds(), faults, history.summary());
        assertThat(history.regressions()).as("seed %d: tokens going down in the store's apply order", SEED).isEmpty();
        assertThat(history.refusedButApplied()).as("seed %d: writes answered 4xx/5xx that the store applied", SEED).isEmpty();
        assertThat(history.acknowledgedButMissing()).as("seed %d: writes answered 2xx that the store never applied", SEED).isEmpty();
        assertThat(history.admittedBelowAnAcknowledgedToken())
                .as("seed %d: writes sent after a higher token was acknowledged, yet admitted", SEED).isEmpty();
        assertThat(faults.pauses()).as("the run paused a gateway").isPositive();
        assertThat(faults.cuts()).as("the run cut a gateway from PostgreSQL").isPositive();
        assertThat(faults.backendKills()).as("the run terminated backends").isPositive();
        assertThat(history.count(Sent::acknowledged)).as("the run exercised admissions").isGreaterThan(20);
        assertThat(history.count(write -> write.status() == 412)).as("the run exercised refusals").isPositive();
    }

    private static List<Sent> runWriters(long end) throws InterruptedException {
        Map<String, AtomicLong> leases = new TreeMap<>();
        for (int r = 0; r < RESOURCES; r++) {
            leases.put("/nemesis/r" + r, new AtomicLong(1));
        }
        List<Sent> sent = Collections.synchronizedList(new ArrayList<>());
        int writers = WRITERS_PER_GATEWAY * gateways.size();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        for (int w = 0; w < writers; w++) {
            int gateway = w % gateways.size();
            Writer writer = new Writer(w, gateway, gateways.get(gateway).port(), new Random(SEED * 31 + w), leases, sent);
            pool.execute(() -> writer.run(end));
        }
        pool.shutdown();
        // A writer's last write may wait out a pause and a late body: bounded well past the run.
        assertThat(pool.awaitTermination(RUN.toSeconds() + 90, TimeUnit.SECONDS)).as("writers stopped").isTrue();
        synchronized (sent) {
            return List.copyOf(sent);
        }
    }
}
