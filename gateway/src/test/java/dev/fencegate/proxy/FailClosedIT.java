package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TcpRelay;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** When the fence store cannot answer in time, writes are refused with 503 and never forwarded. */
@ExtendWith(NoNettyLeaks.class)
class FailClosedIT {

    private static final Duration BOUND = Duration.ofMillis(800);

    /**
     * A gateway ready and writing through a relay to its database; then the relay goes silent
     * (connections stay open, nothing passes, no FIN or reset), so a write's fence check can only
     * run out its time: the 503 is the fence check's own, not a refusal of a start that never got ready.
     */
    @Test
    void writesFailClosedWith503WhenTheFenceStoreIsUnreachable() throws Exception {
        DatabaseConfig direct = TestPostgres.config(TestPostgres.newSchema("black_hole"), BOUND);
        try (TcpRelay relay = TcpRelay.toJdbc(direct.url())) {
            DatabaseConfig relayed = new DatabaseConfig(relay.jdbcUrl(direct.url()), direct.schema(), direct.user(),
                    direct.password(), 1, BOUND);
            try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), relayed, Duration.ofSeconds(5))) {
                try {
                    blackHoled(gateway, relay);
                } finally {
                    // Before the gateway closes: its database connections then end at once rather than wait out their timeouts.
                    relay.close();
                }
            }
        }
    }

    private static void blackHoled(GatewayHarness gateway, TcpRelay relay) throws Exception {
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> readyz(gateway) == 200);
        assertThat(gateway.put("/b/before", 5, "x").statusCode()).as("writes pass through the relay").isEqualTo(201);
        gateway.store.clear();

        relay.freeze();
        long started = System.nanoTime();
        HttpResponse<String> write;
        try {
            write = HttpClient.newHttpClient().send(HttpRequest.newBuilder(gateway.uri("/b/k"))
                    .header("Fencing-Token", "5").timeout(BOUND.multipliedBy(4))
                    .PUT(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new AssertionError("no answer to a write within " + BOUND.multipliedBy(4).toMillis()
                    + " ms of the fence store going silent: the fence check is not bounded", e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(write.statusCode()).as(write.body()).isEqualTo(503);
        assertThat(write.headers().firstValue("Retry-After")).isPresent();
        assertThat(write.body()).contains("fence-unavailable");
        assertThat(write.body()).as("refused by the fence check, not as a start never checked").doesNotContain("not checked yet");
        assertThat(took).isLessThan(BOUND.multipliedBy(4));
        assertThat(gateway.store.requestCount()).isZero();
        // Reads do not need the fence store.
        assertThat(gateway.get("/b/k").statusCode()).isEqualTo(404);
        // Readiness follows within the fence timeout of the database going silent.
        Awaitility.await().atMost(BOUND.multipliedBy(2)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat(readyz(gateway)).isEqualTo(503));
    }

    @Test
    void writesFailClosedWithin503BoundWhenTheFenceRowIsLocked() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("row_lock"), BOUND);
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), database, Duration.ofSeconds(5))) {
            assertThat(gateway.put("/b/locked", 1, "x").statusCode()).isEqualTo(201);
            var server = TestPostgres.server();
            try (Connection locker = DriverManager.getConnection(server.url(), server.user(), server.password());
                 Statement statement = locker.createStatement()) {
                locker.setAutoCommit(false);
                statement.execute("SELECT * FROM " + database.schema() + ".fence WHERE resource = '/b/locked' FOR UPDATE");
                int before = gateway.store.requestCount();

                long started = System.nanoTime();
                HttpResponse<String> write = gateway.put("/b/locked", 2, "y");
                Duration took = Duration.ofNanos(System.nanoTime() - started);

                assertThat(write.statusCode()).isEqualTo(503);
                assertThat(took).isLessThan(BOUND.multipliedBy(4));
                assertThat(gateway.store.requestCount()).isEqualTo(before);
                locker.rollback();
            }
            // The lock is gone and the fence was not harmed: the write goes through now.
            assertThat(gateway.put("/b/locked", 2, "y").statusCode()).isEqualTo(204);
            assertThat(gateway.fenceRow("/b/locked")).isEqualTo(2);
        }
    }

    @Test
    void readyzAnswers200OnlyWhileTheFenceStoreIsReachableAndMigrated() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(getClass().getSimpleName())) {
            assertThat(readyz(gateway)).isEqualTo(200);
        }
    }

    private static int readyz(GatewayHarness gateway) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + gateway.gateway.adminPort() + "/readyz")).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode();
    }
}
