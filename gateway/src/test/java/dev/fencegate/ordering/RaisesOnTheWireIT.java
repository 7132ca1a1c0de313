package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A holder that keeps writing with its token through one gateway while the fence goes up by
 * another path: the admin port of the same gateway, SQL by hand, or a write on another gateway
 * after the holder's registration row was deleted. Writes it starts after the raise (at once for
 * the admin port, within the listener's second otherwise) are refused, never admitted from memory.
 */
@ExtendWith(NoNettyLeaks.class)
class RaisesOnTheWireIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** One write of the holder: when it started and what it got. */
    private record Attempt(long startedNanos, int status) {
    }

    @Test
    void anAdminRaiseOnTheHoldingGatewayStopsItsHolderAtOnce() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("wire_admin_raise"));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database,
                     Duration.ofSeconds(5)));
             Holder holder = new Holder(gateway.port(), "/jobs/admin", 5)) {
            holder.awaitAdmitted(20);
            HttpResponse<String> raised = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort()
                    + "/fences/%2Fjobs%2Fadmin?token=6")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            long raisedAt = System.nanoTime();
            assertThat(raised.statusCode()).as(raised.body()).isEqualTo(200);

            holder.assertRefusedFrom(raisedAt);
        }
    }

    @Test
    void aRaiseBySqlStopsAHolderThatKeepsWritingWithinASecond() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("wire_sql_raise"));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database,
                     Duration.ofSeconds(5)));
             Holder holder = new Holder(gateway.port(), "/jobs/sql", 5)) {
            holder.awaitAdmitted(20);
            sql("UPDATE " + database.schema() + ".fence SET token = 6 WHERE resource = '/jobs/sql'");
            long raisedAt = System.nanoTime();

            holder.assertRefusedFrom(raisedAt + Duration.ofSeconds(1).toNanos());
        }
    }

    @Test
    void aRaiseOnAnotherGatewayStopsAHolderWhoseRowWasDeletedWithinASecond() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("wire_deleted_row"));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             Gateway a = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database,
                     Duration.ofSeconds(5)));
             Gateway b = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database,
                     Duration.ofSeconds(5)));
             Holder holder = new Holder(a.port(), "/jobs/deleted", 5)) {
            holder.awaitAdmitted(20);
            sql("DELETE FROM " + database.schema() + ".fence_inflight");
            HttpResponse<String> newer = PausedGatewayIT.putUntilAnswered(b.port(), "/jobs/deleted", 6);
            long raisedAt = System.nanoTime();
            assertThat(newer.statusCode()).as(newer.body()).isIn(201, 204);

            holder.assertRefusedFrom(raisedAt + Duration.ofSeconds(1).toNanos());
        }
    }

    private static void sql(String statement) throws Exception {
        var server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement sql = connection.createStatement()) {
            sql.execute(statement);
        }
    }

    /** Writes with one token, one write after another, until closed. */
    private static final class Holder implements AutoCloseable {
        private final List<Attempt> attempts = new CopyOnWriteArrayList<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        Holder(int port, String path, long token) {
            thread = new Thread(() -> {
                while (running.get()) {
                    long started = System.nanoTime();
                    attempts.add(new Attempt(started, PausedGatewayIT.put(port, path, token).statusCode()));
                }
            }, "holder");
            thread.start();
        }

        void awaitAdmitted(int writes) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                    .until(() -> attempts.stream().filter(a -> a.status() / 100 == 2).count() >= writes);
        }

        /** Every write started from {@code fromNanos} on is refused as stale; there are some. */
        void assertRefusedFrom(long fromNanos) throws InterruptedException {
            long until = Math.max(System.nanoTime(), fromNanos) + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() < until) {
                Thread.sleep(50);
            }
            List<Integer> after = attempts.stream().filter(a -> a.startedNanos() - fromNanos >= 0).map(Attempt::status).toList();
            assertThat(after).isNotEmpty().containsOnly(412);
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(10_000);
        }
    }
}
