package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.AdminMetrics;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A gateway process stopped (SIGSTOP, as a long GC pause would) after it admitted a write and
 * before the write went to the store, for longer than its registration lives: another instance
 * raises meanwhile and lands a higher token; when the stopped one resumes, its old write is not
 * sent, and its client gets 503 admission-expired. Rows here last 5 s (2 s upstream timeout plus 3 s).
 */
@ExtendWith(NoNettyLeaks.class)
class PausedGatewayIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String BODY = "token 5 old";

    @Test
    void aGatewayPausedBetweenAdmissionAndForwardingDoesNotSendAFirstWriteAfterAHigherToken() throws Exception {
        pausedWriteIsNotSent("paused_first", "/jobs/first", false);
    }

    @Test
    void aGatewayPausedBetweenAdmissionAndForwardingDoesNotSendAHeldWriteAfterAHigherToken() throws Exception {
        pausedWriteIsNotSent("paused_held", "/jobs/held", true);
    }

    private static void pausedWriteIsNotSent(String schemaName, String path, boolean held) throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema(schemaName));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             Gateway survivor = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()),
                     database, Duration.ofSeconds(2)));
             GatewayProcess paused = GatewayProcess.start(List.of("-Xmx128m"), store.port(), database,
                     "--upstream-timeout", "2s", "--client-idle-timeout", "60s")) {
            if (held) {
                // Writing steadily at 5: the paused instance holds the fence and admits from memory.
                for (int i = 0; i < 20; i++) {
                    assertThat(put(paused.port(), path, 5).statusCode()).isIn(201, 204);
                }
            }
            int appliedBefore = store.appliedTo(path).size();
            try (RawHttp client = RawHttp.connect(paused.port())) {
                client.timeout(30_000);
                double heldBefore = AdminMetrics.heldAdmissions(paused.adminPort());
                // The head only: admitted, the gateway waits for the body before it opens the store connection.
                client.send("PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: 5\r\nContent-Length: "
                        + BODY.length() + "\r\n\r\n");
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> fence(database, path) == 5);
                if (held) {
                    // Admitted from memory, with no statement: the path a held fence takes.
                    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                            .until(() -> AdminMetrics.heldAdmissions(paused.adminPort()) > heldBefore);
                }
                Thread.sleep(300); // the decision reaches the event loop

                signal(paused, "STOP");
                try {
                    // The body arrives while the gateway is stopped: it runs as soon as it wakes.
                    client.send(BODY);
                    HttpResponse<String> newer = putUntilAnswered(survivor.port(), path, 6);
                    assertThat(newer.statusCode()).as(newer.body()).isIn(201, 204);
                } finally {
                    signal(paused, "CONT");
                }

                String answer = client.readResponse();
                assertThat(RawHttp.status(answer)).as(() -> answer + "\nstore saw " + store.appliedTo(path).stream()
                        .map(AppliedWrite::fencingToken).toList() + "\npaused gateway's log:\n" + paused.output()).isEqualTo(503);
                assertThat(answer).contains("urn:fencegate:problem:admission-expired");
            }
            Thread.sleep(1_000);
            List<String> tokens = store.appliedTo(path).stream().skip(appliedBefore).map(AppliedWrite::fencingToken).toList();
            assertThat(tokens).as("the old write never lands after the new one").containsExactly("6");
        }
    }

    private static void signal(GatewayProcess gateway, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(gateway.process().pid())).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
    }

    static long fence(DatabaseConfig database, String resource) throws SQLException {
        var server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             PreparedStatement select = connection.prepareStatement("SELECT token FROM " + database.schema() + ".fence WHERE resource = ?")) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : -1;
            }
        }
    }

    /** Retries the 503 "lower-token write in flight" answer, as a client following Retry-After would. */
    static HttpResponse<String> putUntilAnswered(int port, String path, long token) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        HttpResponse<String> response = put(port, path, token);
        while (response.statusCode() == 503 && System.nanoTime() < deadline) {
            assertThat(response.body()).contains("lower-token-in-flight");
            Thread.sleep(100);
            response = put(port, path, token);
        }
        return response;
    }

    static HttpResponse<String> put(int port, String path, long token) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Fencing-Token", Long.toString(token))
                    .PUT(HttpRequest.BodyPublishers.ofString("token " + token)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
