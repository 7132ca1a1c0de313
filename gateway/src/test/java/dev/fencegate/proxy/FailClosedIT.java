package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** When the fence store cannot answer in time, writes are refused with 503 and never forwarded. */
@ExtendWith(NoNettyLeaks.class)
class FailClosedIT {

    private static final Duration BOUND = Duration.ofMillis(800);

    @Test
    void writesFailClosedWith503WhenTheFenceStoreIsUnreachable() throws Exception {
        DatabaseConfig nowhere = new DatabaseConfig("jdbc:postgresql://127.0.0.1:1/none", "public", "postgres", "", 2, BOUND);
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), nowhere, Duration.ofSeconds(5))) {
            long started = System.nanoTime();
            HttpResponse<String> write = gateway.put("/b/k", 5, "x");
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(write.statusCode()).isEqualTo(503);
            assertThat(write.headers().firstValue("Retry-After")).isPresent();
            assertThat(write.body()).contains("fence-unavailable");
            assertThat(took).isLessThan(BOUND.multipliedBy(4));
            assertThat(gateway.store.requestCount()).isZero();
            // Reads do not need the fence store.
            assertThat(gateway.get("/b/k").statusCode()).isEqualTo(404);
            assertThat(readyz(gateway)).isEqualTo(503);
        }
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
