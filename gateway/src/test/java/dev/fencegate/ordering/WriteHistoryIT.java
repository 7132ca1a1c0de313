package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.AdminMetrics;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The ordering guarantee under concurrency: several gateway instances share one PostgreSQL, the
 * store holds every write for a random time before applying it, and many writers mix current,
 * raised and stale tokens. In the store's apply order, per resource, tokens never go down.
 */
@ExtendWith(NoNettyLeaks.class)
class WriteHistoryIT {

    private static final int INSTANCES = 2;
    private static final int RESOURCES = 3;
    private static final int WRITERS = 12;
    private static final Duration RUN = Duration.ofSeconds(6);

    /** One write as its worker saw it; times are System.nanoTime. */
    private record Sent(String id, String path, long token, int status, long sentNanos, long answeredNanos) {
    }

    @Test
    void tokensNeverGoDownInTheStoresApplyOrderAcrossInstances() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("history"), Duration.ofSeconds(5));
        List<Sent> sent = new ArrayList<>();
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback()
                .withWriteDelay(Duration.ZERO, Duration.ofMillis(40)))) {
            List<Gateway> gateways = new ArrayList<>();
            try {
                for (int i = 0; i < INSTANCES; i++) {
                    gateways.add(Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()),
                            database, Duration.ofSeconds(10))));
                }
                sent.addAll(runWriters(gateways));
                assertThat(gateways.stream().mapToDouble(gateway -> AdminMetrics.heldAdmissions(gateway.adminPort())).sum())
                        .as("writes admitted at held fences: the run must exercise them").isPositive();
            } finally {
                gateways.forEach(Gateway::close);
            }
            assertHistory(store.applied(), sent);
            assertNoWriteAdmittedBelowAnAcknowledgedToken(sent);
        }
    }

    /**
     * Real-time order, which held fences must keep: once a write with token t was acknowledged,
     * a write sent afterwards with a lower token is refused, whichever instance it reaches.
     */
    private static void assertNoWriteAdmittedBelowAnAcknowledgedToken(List<Sent> sent) {
        Map<String, List<Sent>> byPath = sent.stream().collect(Collectors.groupingBy(Sent::path));
        byPath.forEach((path, writes) -> {
            List<Sent> acknowledged = writes.stream().filter(w -> w.status() / 100 == 2)
                    .sorted(java.util.Comparator.comparingLong(Sent::answeredNanos)).toList();
            for (Sent write : acknowledged) {
                long highestBefore = acknowledged.stream().filter(a -> a.answeredNanos() < write.sentNanos())
                        .mapToLong(Sent::token).max().orElse(0);
                assertThat(write.token()).as("%s: write %s with token %d was admitted after token %d was acknowledged",
                        path, write.id(), write.token(), highestBefore).isGreaterThanOrEqualTo(highestBefore);
            }
        });
    }

    private static List<Sent> runWriters(List<Gateway> gateways) throws InterruptedException {
        Map<String, AtomicLong> leases = new ConcurrentHashMap<>();
        for (int r = 0; r < RESOURCES; r++) {
            leases.put("/history/r" + r, new AtomicLong(1));
        }
        List<String> paths = List.copyOf(leases.keySet());
        List<Sent> sent = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong ids = new AtomicLong();
        long end = System.nanoTime() + RUN.toNanos();
        ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
        for (int w = 0; w < WRITERS; w++) {
            writers.execute(() -> {
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    String path = paths.get(random.nextInt(paths.size()));
                    AtomicLong lease = leases.get(path);
                    int roll = random.nextInt(100);
                    // Mostly the current holder; sometimes a new grant; sometimes a holder that lost its lease.
                    long token = roll < 15 ? lease.incrementAndGet()
                            : roll < 30 ? Math.max(1, lease.get() - 1 - random.nextInt(3)) : lease.get();
                    Gateway gateway = gateways.get(random.nextInt(gateways.size()));
                    String id = Long.toString(ids.incrementAndGet());
                    long sentNanos = System.nanoTime();
                    int status = put(http, gateway.port(), path, token, id);
                    sent.add(new Sent(id, path, token, status, sentNanos, System.nanoTime()));
                }
            });
        }
        writers.shutdown();
        assertThat(writers.awaitTermination(RUN.toSeconds() + 60, TimeUnit.SECONDS)).isTrue();
        return sent;
    }

    private static int put(HttpClient http, int port, String path, long token, String id) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Fencing-Token", Long.toString(token)).header("X-Request-Id", id)
                    .PUT(HttpRequest.BodyPublishers.ofString(id)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static void assertHistory(List<AppliedWrite> applied, List<Sent> sent) {
        Map<String, List<AppliedWrite>> byPath = applied.stream().collect(Collectors.groupingBy(AppliedWrite::path));
        assertThat(byPath).hasSize(RESOURCES);
        byPath.forEach((path, writes) -> {
            for (int i = 1; i < writes.size(); i++) {
                long before = Long.parseLong(writes.get(i - 1).fencingToken());
                long after = Long.parseLong(writes.get(i).fencingToken());
                assertThat(after).as("%s: apply #%d (token %d) came after token %d", path, i, after, before)
                        .isGreaterThanOrEqualTo(before);
            }
        });
        Set<String> appliedIds = applied.stream().map(AppliedWrite::requestId).collect(Collectors.toSet());
        List<Sent> refusedButApplied = sent.stream().filter(s -> s.status() == 412 || s.status() == 503)
                .filter(s -> appliedIds.contains(s.id())).toList();
        List<Sent> acknowledgedButLost = sent.stream().filter(s -> s.status() / 100 == 2)
                .filter(s -> !appliedIds.contains(s.id())).toList();
        assertThat(refusedButApplied).as("refused writes that reached the store").isEmpty();
        assertThat(acknowledgedButLost).as("acknowledged writes the store never applied").isEmpty();
        long stale = sent.stream().filter(s -> s.status() == 412).count();
        long ok = sent.stream().filter(s -> s.status() / 100 == 2).count();
        assertThat(stale).as("the run must exercise refusals").isPositive();
        assertThat(ok).as("the run must exercise admissions").isGreaterThan(100);
        System.out.printf("history: %d sent, %d applied, %d refused stale, statuses %s%n", sent.size(), applied.size(), stale,
                sent.stream().collect(Collectors.groupingBy(Sent::status, Collectors.counting())));
    }
}
