package dev.fencegate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM, as an orchestrator sends it to the packaged jar: the instance stops being ready at
 * once, a write already at the store still completes, and the process exits 0 within the drain
 * deadline (10 s, Gateway.DRAIN).
 */
class GracefulShutdownIT {

    private static final Duration STORE_WRITE_TIME = Duration.ofMillis(1_500);
    private static final Duration DRAIN_DEADLINE = Duration.ofSeconds(10);
    private static final String BODY = "written while the gateway was told to stop";

    @Test
    void sigtermStopsReadinessLetsTheInFlightWriteCompleteAndExitsZero() throws Exception {
        try (MemoryObjectStore store = MemoryObjectStore.start(
                MemoryObjectStore.Options.loopback().withWriteDelay(STORE_WRITE_TIME, STORE_WRITE_TIME));
             GatewayProcess gateway = GatewayProcess.start(List.of("-Dio.netty.leakDetection.level=paranoid"), store.port(),
                     TestPostgres.config(TestPostgres.newSchema("graceful_shutdown")))) {
            HttpRequest put = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/drain/report.csv"))
                    .header("Fencing-Token", "1")
                    .PUT(HttpRequest.BodyPublishers.ofString(BODY))
                    .build();
            CompletableFuture<HttpResponse<String>> write = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                    .sendAsync(put, HttpResponse.BodyHandlers.ofString());
            // The store counts a request when its head arrives: from then on the write is in flight through the gateway.
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.requestCount() == 1 || write.isDone());
            assertThat(write).as("the write must still be at the store when SIGTERM comes").isNotDone();

            long sigterm = System.nanoTime();
            gateway.process().destroy();

            Awaitility.await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(20)).until(() -> !gateway.ready());
            boolean notReadyBeforeTheWriteFinished = !write.isDone();
            HttpResponse<String> response;
            try {
                response = write.get(DRAIN_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("the in-flight write failed instead of completing: " + e.getCause()
                        + "\n" + gateway.output(), e);
            }
            long left = DRAIN_DEADLINE.toNanos() - (System.nanoTime() - sigterm);
            boolean exited = gateway.process().waitFor(Math.max(0, left), TimeUnit.NANOSECONDS);

            assertThat(notReadyBeforeTheWriteFinished).as("/readyz stopped answering 200 while the write was in flight").isTrue();
            assertThat(response.statusCode()).as("the in-flight write's answer\n%s", gateway.output()).isBetween(200, 299);
            // Its client sends its next request on a new connection, refused plainly, not on this one as it closes.
            assertThat(response.headers().firstValue("connection")).as("an answer while draining").hasValue("close");
            assertThat(store.object("/drain/report.csv")).hasValueSatisfying(
                    bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo(BODY));
            assertThat(exited).as("exited within %s of SIGTERM\n%s", DRAIN_DEADLINE, gateway.output()).isTrue();
            assertThat(gateway.process().exitValue()).as("exit status\n%s", gateway.output()).isZero();
        }
    }

    /**
     * The data port serves before the start has ended: the start then waits for the store, here
     * one that takes TLS connections and never answers their handshake. A SIGTERM in that time
     * used to end the process at once (status 143, no drain); the gateway now stops as it would
     * once started.
     */
    @Test
    void aSigtermWhileTheStartWaitsForTheStoreStopsTheGatewayAndExitsZero() throws Exception {
        try (ServerSocket silentStore = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             GatewayProcess gateway = GatewayProcess.launch(List.of(), "https://127.0.0.1:" + silentStore.getLocalPort(),
                     TestPostgres.config(TestPostgres.newSchema("sigterm_during_start")),
                     "--upstream-connect-timeout", "15s")) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !gateway.process().isAlive() || accepts(gateway.port()));
            assertThat(gateway.output()).as("the start still waits for the store").doesNotContain("Fencegate ready")
                    .doesNotContain("Fencegate NOT READY");

            gateway.process().destroy();
            boolean exited = gateway.process().waitFor(60, TimeUnit.SECONDS);

            assertThat(exited).as("exited\n%s", gateway.output()).isTrue();
            assertThat(gateway.process().exitValue()).as("exit status\n%s", gateway.output()).isZero();
            assertThat(gateway.output()).contains("Fencegate stopped");
        }
    }

    private static boolean accepts(int port) {
        try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
