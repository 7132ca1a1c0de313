package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What happens to ordering when the store is slow past the gateway's patience, and when a gateway
 * dies with a write on its way: a higher token is held back until the lower write can no longer land.
 */
@ExtendWith(NoNettyLeaks.class)
class StoreFaultsIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void afterAnUnknownOutcomeAHigherTokenWaitsUntilTheLowerWriteCouldHaveLanded() throws Exception {
        Duration upstreamTimeout = Duration.ofSeconds(1);
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, TestPostgres.config(TestPostgres.newSchema("unknown_outcome")), upstreamTimeout,
                Duration.ofSeconds(5), SafetyConfig.defaults()))) {
            // The store takes 1.5 s for token 5: the gateway gives up at 1 s, the store applies it anyway.
            HttpResponse<String> timedOut = put(gateway.port(), "/jobs/out", 5, 1500);
            assertThat(timedOut.statusCode()).isEqualTo(504);

            long sentAt = System.nanoTime();
            HttpResponse<String> newer = putUntilAnswered(gateway.port(), "/jobs/out", 6, 0);
            assertThat(newer.statusCode()).isIn(201, 204);
            assertThat(Duration.ofNanos(System.nanoTime() - sentAt)).as("held back for the unknown outcome")
                    .isGreaterThan(Duration.ofMillis(400));

            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> gateway.store.appliedTo("/jobs/out").size() == 2);
            assertThat(gateway.store.appliedTo("/jobs/out")).extracting(AppliedWrite::fencingToken).containsExactly("5", "6");
        }
    }

    @Test
    void aGatewayKilledMidForwardHoldsHigherTokensBackUntilItsWritesCannotLand() throws Exception {
        Duration waited = killMidForwardThenRaise("killed_instance", "/jobs/k", Duration.ofSeconds(2));
        // Its row may have been renewed just before the kill: it lives 2 s + 3 s, then 1.25 s of grace.
        assertThat(waited).as("held back no longer than its writes could land").isLessThan(Duration.ofSeconds(10));
    }

    /**
     * Measures kill to next token: a dead instance's rows hold higher tokens back for the store
     * timeout plus the row headroom (3 s) and the grace (1.25 s), 9.25 s here, not several times the timeout.
     */
    @Test
    void aKilledGatewaysNextTokenLandsWithinTheUpstreamTimeoutAndTheRowHeadroom() throws Exception {
        Duration waited = killMidForwardThenRaise("killed_measured", "/jobs/m", Duration.ofSeconds(5));
        System.out.println("kill to next token landed: " + waited.toMillis() + " ms (upstream timeout 5 s)");
        assertThat(waited).isLessThan(Duration.ofSeconds(12));
    }

    /** Kills a gateway process while the store holds its write at 5, then lands 6 through another; returns kill to 6 landed. */
    private static Duration killMidForwardThenRaise(String schema, String path, Duration upstreamTimeout) throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema(schema));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             Gateway survivor = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()),
                     database, upstreamTimeout))) {
            GatewayProcess doomed = GatewayProcess.start(List.of("-Xmx128m"), store.port(), database,
                    "--upstream-timeout", upstreamTimeout.toSeconds() + "s");
            long killedAt;
            try {
                CompletableFuture<HttpResponse<String>> inFlight = CompletableFuture.supplyAsync(() -> put(doomed.port(), path, 5, 1500));
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> store.requestCount() >= 1);
                killedAt = System.nanoTime();
                doomed.process().destroyForcibly().waitFor();
                assertThat(inFlight.handle((response, failure) -> failure != null || response.statusCode() >= 500).get()).isTrue();
            } finally {
                doomed.close();
            }

            HttpResponse<String> newer = putUntilAnswered(survivor.port(), path, 6, 0);
            Duration waited = Duration.ofNanos(System.nanoTime() - killedAt);
            assertThat(newer.statusCode()).isIn(201, 204);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> store.appliedTo(path).size() == 2);
            assertThat(store.appliedTo(path)).extracting(AppliedWrite::fencingToken).containsExactly("5", "6");
            return waited;
        }
    }

    @Test
    void aCleanlyStoppedGatewayHoldsNoRaiseBack() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("clean_stop"));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback())) {
            URI upstream = URI.create("http://127.0.0.1:" + store.port());
            try (Gateway first = Gateway.start(GatewayHarness.config(upstream, database, Duration.ofSeconds(2)))) {
                assertThat(put(first.port(), "/jobs/c", 5, 0).statusCode()).isEqualTo(201);
            }
            try (Gateway second = Gateway.start(GatewayHarness.config(upstream, database, Duration.ofSeconds(2)))) {
                HttpResponse<String> newer = put(second.port(), "/jobs/c", 6, 0);
                assertThat(newer.statusCode()).as(newer.body()).isEqualTo(204);
            }
        }
    }

    /**
     * S3 answers a CompleteMultipartUpload with its 200 at once and then blanks until the object is
     * built, which can take minutes, and builds it even when the connection is gone. Cut at the
     * upstream timeout, the write was taken as over (after one more timeout), and the higher token
     * landed before the lower write did.
     */
    @Test
    void aWriteWhoseAnswerTheStoreKeepsAliveIsInFlightUntilItEndsSoAHigherTokenLandsAfterIt() throws Exception {
        Duration upstreamTimeout = Duration.ofSeconds(1);
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("kept_alive_answer"));
        try (KeepAliveAnswerStore store = new KeepAliveAnswerStore();
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database,
                     upstreamTimeout))) {
            // The store builds token 5's write for 5.5 s, sending a blank every 300 ms: past the upstream timeout, and
            // past the life of its registration row (the timeout and 3 s), which must be renewed meanwhile.
            CompletableFuture<HttpResponse<String>> slow = CompletableFuture.supplyAsync(() -> put(gateway.port(), "/jobs/built", 5, 5_500));
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> store.answersStarted.get() == 1);
            Thread.sleep(upstreamTimeout.multipliedBy(2).plusMillis(300).toMillis());

            HttpResponse<String> newer = putUntilAnswered(gateway.port(), "/jobs/built", 6, 0);

            assertThat(newer.statusCode()).as(newer.body()).isEqualTo(200);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> store.applied.size() == 2);
            assertThat(store.applied).as("the order the store applied them in").containsExactly("5", "6");
            HttpResponse<String> lower = slow.get();
            assertThat(lower.statusCode()).as("the store's answer relayed whole").isEqualTo(200);
            assertThat(lower.body()).endsWith("<Done/>");
        }
    }

    /**
     * The worker gives up on the answer (its own timeout, or it was killed) while the store still
     * builds the write: the connection was reset and the outcome held unknown for one timeout only,
     * after which the higher token landed first. The gateway reads the answer on to its end.
     */
    @Test
    void aWriteWhoseClientLeavesWhileTheStoreStillAnswersIsInFlightUntilTheAnswerEnds() throws Exception {
        Duration upstreamTimeout = Duration.ofSeconds(1);
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("answer_left"));
        try (KeepAliveAnswerStore store = new KeepAliveAnswerStore();
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database,
                     upstreamTimeout))) {
            try (java.net.Socket worker = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), gateway.port())) {
                worker.getOutputStream().write(("PUT /jobs/left HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 5\r\n"
                        + "X-Store-Delay-Ms: 5500\r\nContent-Length: 7\r\n\r\ntoken 5").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                byte[] head = new byte[12];
                assertThat(worker.getInputStream().readNBytes(head, 0, head.length)).isEqualTo(head.length);
                assertThat(new String(head, java.nio.charset.StandardCharsets.US_ASCII)).as("the answer began").isEqualTo("HTTP/1.1 200");
                Thread.sleep(1_500);
                // The worker gives up here, the store still building.
            }
            Thread.sleep(upstreamTimeout.multipliedBy(2).toMillis());

            HttpResponse<String> newer = putUntilAnswered(gateway.port(), "/jobs/left", 6, 0);

            assertThat(newer.statusCode()).as(newer.body()).isEqualTo(200);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> store.applied.size() == 2);
            assertThat(store.applied).as("the order the store applied them in").containsExactly("5", "6");
        }
    }

    /**
     * A store whose writes take {@code X-Store-Delay-Ms} to apply, answering at once with a 200 head
     * and a blank every 300 ms until it has applied them, as S3 keeps a CompleteMultipartUpload's
     * answer alive; a write is applied whether or not its connection is still there.
     */
    private static final class KeepAliveAnswerStore implements AutoCloseable {
        final List<String> applied = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.concurrent.atomic.AtomicInteger answersStarted = new java.util.concurrent.atomic.AtomicInteger();
        private final java.net.ServerSocket server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        private final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();

        KeepAliveAnswerStore() throws java.io.IOException {
            threads.execute(() -> {
                while (!server.isClosed()) {
                    try {
                        java.net.Socket socket = server.accept();
                        threads.execute(() -> serve(socket));
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
        }

        int port() {
            return server.getLocalPort();
        }

        private void serve(java.net.Socket socket) {
            try (socket) {
                java.io.InputStream in = socket.getInputStream();
                java.util.Map<String, String> headers = new java.util.HashMap<>();
                String line = readLine(in);
                while (!(line = readLine(in)).isEmpty()) {
                    int colon = line.indexOf(':');
                    headers.put(line.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT), line.substring(colon + 1).trim());
                }
                in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
                String token = headers.get("fencing-token");
                long applyAt = System.nanoTime() + Duration.ofMillis(Long.parseLong(headers.getOrDefault("x-store-delay-ms", "0"))).toNanos();
                java.io.OutputStream out = socket.getOutputStream();
                boolean connected = send(out, "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\n"
                        + "Connection: close\r\n\r\n");
                answersStarted.incrementAndGet();
                while (System.nanoTime() - applyAt < 0) {
                    Thread.sleep(Math.max(1, Math.min(300, (applyAt - System.nanoTime()) / 1_000_000)));
                    if (connected && System.nanoTime() - applyAt < 0) {
                        connected = send(out, "1\r\n \r\n");
                    }
                }
                applied.add(token);
                if (connected) {
                    send(out, "7\r\n<Done/>\r\n0\r\n\r\n");
                }
            } catch (java.io.IOException | InterruptedException e) {
                // The gateway went; the test reads what was applied.
            }
        }

        private static boolean send(java.io.OutputStream out, String text) {
            try {
                out.write(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                out.flush();
                return true;
            } catch (java.io.IOException e) {
                return false; // the connection is gone; the write is built all the same
            }
        }

        private static String readLine(java.io.InputStream in) throws java.io.IOException {
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) {
                    throw new java.io.EOFException();
                }
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }

        @Override
        public void close() throws java.io.IOException {
            server.close();
            threads.shutdownNow();
        }
    }

    /** Retries the 503 "lower-token write in flight" answer, as a client following Retry-After would. */
    private static HttpResponse<String> putUntilAnswered(int port, String path, long token, int storeDelayMillis) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        HttpResponse<String> response = put(port, path, token, storeDelayMillis);
        while (response.statusCode() == 503 && System.nanoTime() < deadline) {
            assertThat(response.body()).contains("lower-token-in-flight");
            Thread.sleep(100);
            response = put(port, path, token, storeDelayMillis);
        }
        return response;
    }

    private static HttpResponse<String> put(int port, String path, long token, int storeDelayMillis) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Fencing-Token", Long.toString(token))
                    .header("X-Store-Delay-Ms", Integer.toString(storeDelayMillis))
                    .PUT(HttpRequest.BodyPublishers.ofString("token " + token)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
