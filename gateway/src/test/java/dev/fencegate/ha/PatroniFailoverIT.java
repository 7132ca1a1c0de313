package dev.fencegate.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.ha.Writers.Write;
import dev.fencegate.testing.AdminMetrics;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.PatroniCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * README, "PostgreSQL high availability (Patroni)", on a real three-node Patroni cluster in
 * synchronous mode: one gateway process, given every node in a multi-host JDBC URL and
 * --require-sync-standby, in front of a store that records what it applies. The times a failover
 * takes are printed. The second test leaves the primary without standbys, so it runs last.
 */
@ExtendWith(NoNettyLeaks.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PatroniFailoverIT {

    private static final String SCHEMA = "fencegate";
    private static final int WRITERS = 3;
    /**
     * From the promotion to the next acknowledged write. Writes wait for the other standby to
     * reattach as synchronous (about 5 s here) and for the pool's next try at a connection (its
     * backoff after failed ones doubles up to 5 s); the rest is room for a slow machine. A CI run
     * that overlapped a build once saw Patroni take over 20 s to make the other standby synchronous
     * again (alone, 6 s); the gateway was right to refuse meanwhile, so the bound is the machine's,
     * not the gateway's.
     */
    private static final Duration RESUME_BOUND = Duration.ofSeconds(45);

    private static PatroniCluster cluster;
    private static MemoryObjectStore store;
    private static GatewayProcess gateway;

    @RegisterExtension
    final TestWatcher logsOnFailure = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            System.out.println("--- gateway\n" + gateway.output() + cluster.logs());
        }
    };

    @BeforeAll
    static void start() throws IOException {
        cluster = PatroniCluster.start(3);
        store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
        DatabaseConfig database = new DatabaseConfig(cluster.jdbcUrl(), SCHEMA, "postgres", "", 4, Duration.ofSeconds(2));
        gateway = GatewayProcess.start(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), store.port(), database,
                "--require-sync-standby", "--fence-timeout", "2s");
    }

    @AfterAll
    static void stop() {
        try {
            if (gateway != null) {
                gateway.close();
            }
        } finally {
            try {
                if (store != null) {
                    store.close();
                }
            } finally {
                if (cluster != null) {
                    cluster.close();
                }
            }
        }
    }

    /**
     * The primary is killed (SIGKILL to Patroni and to PostgreSQL) under writes to many resources.
     * Patroni promotes the synchronous standby, which holds every fence the gateway acknowledged;
     * meanwhile writes get 503 and none reaches the store, and they are acknowledged again once
     * the new primary has a synchronous standby.
     */
    @Test
    @Order(1)
    void noAcknowledgedFenceIsLostWhenTheSynchronousStandbyIsPromoted() throws Exception {
        PatroniCluster.Node primary = cluster.primary().orElseThrow();
        PatroniCluster.Node standby = cluster.synchronousStandby().orElseThrow();
        Writers writers = Writers.start(gateway.port(), WRITERS, "/ha/before");
        long killed;
        long promoted;
        double confirmedBeforeKill;
        PatroniCluster.Node promotedNode;
        try {
            Awaitility.await("acknowledged writes before the kill").atMost(Duration.ofSeconds(30))
                    .until(() -> writers.acknowledged() >= 60);
            // Resources written before the kill are written no more, so a later raise cannot hide a fence the failover lost.
            writers.writeUnder("/ha/after");
            // The instance has a confirmed position on the old primary, which the promoted standby must not be found behind.
            Awaitility.await("a confirmed WAL position").atMost(Duration.ofSeconds(10))
                    .until(() -> AdminMetrics.value(gateway.adminPort(), "fencegate_fence_history_confirmed_bytes") > 0);
            confirmedBeforeKill = AdminMetrics.value(gateway.adminPort(), "fencegate_fence_history_confirmed_bytes");
            cluster.kill(primary);
            // Every process of the node is gone: a write sent from now on finds no primary until the promotion.
            killed = System.nanoTime();
            promotedNode = Awaitility.await("a new primary").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(cluster::primary, Optional::isPresent).orElseThrow();
            promoted = System.nanoTime();
            Awaitility.await("a write sent after the kill acknowledged").atMost(RESUME_BOUND.plusSeconds(10))
                    .pollInterval(Duration.ofMillis(50)).until(() -> writers.acknowledgedAfter(killed));
        } finally {
            writers.close();
        }
        List<Write> writes = writers.writes();
        List<Write> afterKill = writes.stream().filter(write -> write.sentNanos() > killed).toList();
        long resumed = afterKill.stream().filter(Write::acknowledged).mapToLong(Write::answeredNanos).min().orElseThrow();
        List<Write> gap = afterKill.stream().filter(write -> write.answeredNanos() < resumed).toList();
        System.out.printf("Patroni failover: %s killed, %s promoted %d ms later, writes acknowledged again %d ms after the"
                        + " promotion; %d writes, %d answered 503 in between%n", primary.name(), promotedNode.name(),
                millis(promoted - killed), millis(resumed - promoted), writes.size(), gap.size());

        assertThat(promotedNode).as("the node Patroni promoted").isEqualTo(standby);
        assertThat(AdminMetrics.value(gateway.adminPort(), "fencegate_fence_history_went_back"))
                .as("the promoted standby is not behind a position confirmed on the old primary").isZero();
        Awaitility.await("a position confirmed on the promoted node").atMost(Duration.ofSeconds(10))
                .until(() -> AdminMetrics.value(gateway.adminPort(), "fencegate_fence_history_confirmed_bytes") > confirmedBeforeKill);
        assertThat(writes.stream().map(Write::status).collect(Collectors.toSet()))
                .as("every answer is an admission or fail-closed (each resource's tokens only rise)")
                .allMatch(status -> status / 100 == 2 || status == 503);
        assertThat(gap).as("writes between the kill and the first acknowledged one").isNotEmpty()
                .allSatisfy(write -> assertThat(write.retryAfter()).as("503 with Retry-After: %s", write).isTrue());
        assertThat(millis(resumed - promoted)).as("ms from the promotion to an acknowledged write").isLessThan(RESUME_BOUND.toMillis());

        Set<String> applied = store.applied().stream().map(AppliedWrite::requestId).collect(Collectors.toSet());
        assertThat(writes.stream().filter(write -> write.status() == 503).map(Write::id)).as("refused writes never reach the store")
                .noneMatch(applied::contains);
        assertThat(writes.stream().filter(Write::acknowledged).map(Write::id)).as("acknowledged writes reached the store")
                .allMatch(applied::contains);

        Map<String, Long> acknowledged = highestAcknowledged(writes);
        assertThat(acknowledged.keySet().stream().filter(resource -> resource.startsWith("/ha/before/")))
                .as("resources acknowledged before the kill").hasSize(WRITERS * Writers.RESOURCES_PER_WRITER);
        Map<String, Long> fences = fencesOn(promotedNode);
        assertThat(acknowledged.entrySet()).as("every acknowledged fence, on the promoted node").allSatisfy(fence ->
                assertThat(fences.getOrDefault(fence.getKey(), 0L)).as(fence.getKey()).isGreaterThanOrEqualTo(fence.getValue()));

        for (Map.Entry<String, Long> fence : acknowledged.entrySet()) {
            if (fence.getKey().startsWith("/ha/before/")) {
                Write stale = Writers.put(gateway.port(), "stale" + fence.getKey().replace('/', '-'), fence.getKey(), fence.getValue() - 1);
                assertThat(stale.status()).as("token %d below the fence %s acknowledged before the kill", stale.token(), fence)
                        .isEqualTo(412);
                assertThat(store.applied()).extracting(AppliedWrite::requestId).doesNotContain(stale.id());
            }
        }
    }

    /**
     * With every standby killed, no commit can be confirmed: /readyz says so, and a write gets 503
     * and does not reach the store.
     */
    @Test
    @Order(2)
    void writesAreRefusedWhileNoSynchronousStandbyConfirmsCommits() throws Exception {
        PatroniCluster.Node primary = Awaitility.await("a primary").atMost(Duration.ofSeconds(30))
                .until(cluster::primary, Optional::isPresent).orElseThrow();
        for (PatroniCluster.Node node : cluster.nodes()) {
            if (!node.equals(primary)) {
                cluster.kill(node);
            }
        }
        Awaitility.await("/readyz naming the missing synchronous standby").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                    HttpResponse<String> readyz = readyz();
                    assertThat(readyz.statusCode()).isEqualTo(503);
                    assertThat(readyz.body()).contains("synchronous standby");
                });
        Write refused = Writers.put(gateway.port(), "alone", "/ha/alone/k", 1);
        assertThat(refused.status()).as("a write on the primary alone").isEqualTo(503);
        assertThat(store.applied()).extracting(AppliedWrite::requestId).doesNotContain(refused.id());
    }

    private static Map<String, Long> highestAcknowledged(List<Write> writes) {
        Map<String, Long> highest = new HashMap<>();
        writes.stream().filter(Write::acknowledged).forEach(write -> highest.merge(write.resource(), write.token(), Math::max));
        return highest;
    }

    private static Map<String, Long> fencesOn(PatroniCluster.Node node) throws SQLException {
        Map<String, Long> fences = new HashMap<>();
        try (Connection connection = DriverManager.getConnection(node.jdbcUrl(), "postgres", "");
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT resource, token FROM " + SCHEMA + ".fence")) {
            while (rows.next()) {
                fences.put(rows.getString(1), rows.getLong(2));
            }
        }
        return fences;
    }

    private static HttpResponse<String> readyz() throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort() + "/readyz"))
                .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }
}
