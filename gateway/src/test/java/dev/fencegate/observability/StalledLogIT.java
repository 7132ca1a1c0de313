package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Log lines are written by a thread of their own, so a stderr nobody reads (a log collector that
 * stalled) holds up no event loop: the gateway keeps serving, dropping lines, and still stops when told.
 */
class StalledLogIT {

    @Test
    void aGatewayWhoseLogNobodyReadsKeepsServingAndStopsWhenTold() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("stalled_log"));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback())) {
            int port = GatewayProcess.freePort();
            int adminPort = GatewayProcess.freePort();
            ProcessBuilder builder = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-jar", GatewayProcess.JAR.toString(), "serve",
                    "--listen", "127.0.0.1:" + port, "--admin-listen", "127.0.0.1:" + adminPort,
                    "--upstream", "http://127.0.0.1:" + store.port(),
                    "--db-url", database.url(), "--db-schema", database.schema(), "--db-user", database.user(),
                    "--db-pool-size", "2"))
                    // A pipe this test never reads: it holds 64 KiB, then every write to it waits.
                    .redirectError(ProcessBuilder.Redirect.PIPE)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            builder.environment().put("FENCEGATE_LOG_LEVEL", "DEBUG");
            Process process = builder.start();
            try {
                Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> !process.isAlive() || GatewayProcess.ready(adminPort));
                assertThat(process.isAlive()).isTrue();

                // Each reset is a DEBUG line from the event loop that saw it: far more than the pipe holds.
                for (int i = 0; i < 3_000 && reset(port); i++) {
                    // a line each
                }
                for (int i = 0; i < 8; i++) {
                    // A client of its own each time, so each write comes on a new connection (and event loops take turns).
                    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
                    HttpResponse<String> put = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/b/after-" + i))
                            .timeout(Duration.ofSeconds(5)).header("Fencing-Token", "1")
                            .PUT(HttpRequest.BodyPublishers.ofString("ok")).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(put.statusCode()).as("write %d on a new connection", i).isEqualTo(201);
                }
                assertThat(store.object("/b/after-7")).isPresent();

                process.destroy();
                assertThat(process.waitFor(15, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
                assertThat(process.exitValue()).isZero();
            } finally {
                process.destroyForcibly().waitFor();
            }
        }
    }

    /** Opens a connection, sends part of a request and resets it; false once the gateway takes no connection. */
    private static boolean reset(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            socket.getOutputStream().write("PUT /b/reset HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.setSoLinger(true, 0);
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }
}
