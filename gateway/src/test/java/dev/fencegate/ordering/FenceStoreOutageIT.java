package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Connections to PostgreSQL cut again and again under load: 503s, nothing unchecked forwarded, fences intact. */
@ExtendWith(NoNettyLeaks.class)
class FenceStoreOutageIT {

    private record Sent(long token, int status, String id) {
    }

    @Test
    void cutDatabaseConnectionsGive503NothingUncheckedIsForwardedAndFencesSurvive() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("outage"), Duration.ofSeconds(1));
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, database, Duration.ofSeconds(5), Duration.ofSeconds(5), SafetyConfig.defaults()))) {
            assertThat(gateway.put("/outage/k", 1, "first").statusCode()).isEqualTo(201);

            AtomicBoolean cutting = new AtomicBoolean(true);
            CompletableFuture<Integer> cutter = CompletableFuture.supplyAsync(() -> cutConnections(database.schema(), cutting));
            List<Sent> sent = new ArrayList<>();
            long token = 1;
            long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            for (int i = 0; System.nanoTime() < end; i++) {
                long claimed = i % 5 == 4 ? Math.max(1, token - 1) : ++token;
                String id = "w" + i;
                HttpResponse<String> response = gateway.send(java.net.http.HttpRequest.newBuilder(gateway.uri("/outage/k"))
                        .header("Fencing-Token", Long.toString(claimed)).header("X-Request-Id", id)
                        .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(id)).build());
                sent.add(new Sent(claimed, response.statusCode(), id));
            }
            cutting.set(false);
            assertThat(cutter.get()).as("connections cut").isPositive();

            Set<Integer> statuses = sent.stream().map(Sent::status).collect(Collectors.toSet());
            assertThat(statuses).as("every answer is a fence decision or fail-closed").isSubsetOf(201, 204, 412, 503);
            assertThat(statuses).as("the outage was felt").contains(503);
            Set<String> applied = gateway.store.applied().stream().map(AppliedWrite::requestId).collect(Collectors.toSet());
            assertThat(sent.stream().filter(s -> s.status() == 503 || s.status() == 412).map(Sent::id))
                    .as("refused writes never reach the store").noneMatch(applied::contains);

            // No acknowledged fence was lost or lowered. A write answered 503 may still have raised the fence
            // (its commit landed, the answer to it was cut), so the row may stand above every admitted token.
            long highestAdmitted = sent.stream().filter(s -> s.status() / 100 == 2).mapToLong(Sent::token).max().orElse(1);
            assertThat(gateway.fenceRow("/outage/k")).as("fence after the outage").isGreaterThanOrEqualTo(highestAdmitted);

            // Recovery: a fresh write, above every token sent, goes through again; below it is stale.
            long fresh = sent.stream().mapToLong(Sent::token).max().orElse(1) + 1;
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                HttpResponse<String> again = gateway.put("/outage/k", fresh, "again");
                assertThat(again.statusCode() / 100).as("a fresh write after the outage: %s %s", again.statusCode(), again.body())
                        .isEqualTo(2);
            });
            assertThat(gateway.fenceRow("/outage/k")).isEqualTo(fresh);
            assertThat(gateway.put("/outage/k", highestAdmitted, "stale").statusCode()).isEqualTo(412);
        }
    }

    private static int cutConnections(String schema, AtomicBoolean cutting) {
        var server = TestPostgres.server();
        int cut = 0;
        try (Connection admin = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement statement = admin.createStatement()) {
            while (cutting.get()) {
                try (var rows = statement.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        + "WHERE application_name = 'fencegate/" + schema + "'")) {
                    rows.next();
                    cut += rows.getInt(1);
                }
                Thread.sleep(150);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return cut;
    }
}
