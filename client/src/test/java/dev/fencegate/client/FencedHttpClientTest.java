package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FencedHttpClientTest {

    private final FakeTicker clock = new FakeTicker();
    private final Lease lease = new Lease("report", "worker-a", 7, Duration.ofSeconds(30));
    private final LeaseGuard guard = new LeaseGuard(lease, LeaseTiming.of(lease.ttl()), clock, clock.nanos());
    private final String signature = new TokenSigner(new byte[32]).sign("/b/report.csv", 7);
    private FakeGateway gateway;
    private FencedHttpClient http;

    @BeforeEach
    void start() throws Exception {
        gateway = new FakeGateway();
        http = new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build(),
                WriteFencing.of(guard).signedWith(signature));
    }

    @AfterEach
    void stop() {
        gateway.close();
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path));
    }

    @Test
    void writesCarryTheTokenHolderAndSignatureAndReadsDoNot() throws Exception {
        http.send(request("/b/report.csv").PUT(HttpRequest.BodyPublishers.ofString("x")).header("Fencing-Token", "1").build(),
                HttpResponse.BodyHandlers.ofString());
        http.send(request("/b/report.csv").GET().build(), HttpResponse.BodyHandlers.ofString());

        FakeGateway.Seen write = gateway.seen.get(0);
        assertThat(write.headers().get("Fencing-Token")).as("replaces the caller's").containsExactly("7");
        assertThat(write.headers().get("Fencing-Holder")).containsExactly("worker-a");
        assertThat(write.headers().get("Fencing-Token-Signature")).containsExactly(signature);
        assertThat(gateway.seen.get(1).headers()).doesNotContainKeys("Fencing-Token", "Fencing-Holder");
    }

    @Test
    void aRefusedWriteIsFencedOutTripsTheGuardAndTheNextWriteIsNotSent() throws Exception {
        gateway.fence.set(8);
        assertThatThrownBy(() -> http.send(request("/b/report.csv").DELETE().build(), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOfSatisfying(FencedOutException.class,
                        e -> assertThat(e.refusal()).isEqualTo(FenceRefusal.STALE_TOKEN))
                .hasMessageContaining("\"currentToken\":8");
        assertThat(guard.stillHeld()).isFalse();

        assertThatThrownBy(() -> http.send(request("/b/other.csv").PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(LeaseLostException.class);
        assertThat(gateway.seen).hasSize(1);
    }

    /**
     * The gateway refuses a write that asks for a 100 with its final answer, as HTTP allows, and
     * closes. java.net.http on JDK 17 never returns from such a request: the worker would never
     * learn it was fenced out while its lease went on being renewed. Writes go without the
     * expectation, so the refusal comes back.
     */
    @Test
    void aWriteThatAsksFor100ContinueStillGetsItsRefusal() throws Exception {
        try (ServerSocket refusing = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> refuseWithoutContinue(refusing), "refusing-gateway");
            answering.setDaemon(true);
            answering.start();
            HttpRequest write = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + refusing.getLocalPort() + "/b/report.csv"))
                    .expectContinue(true).PUT(HttpRequest.BodyPublishers.ofString("x".repeat(1024))).build();
            FencedHttpClient http11 = new FencedHttpClient(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(1)).build(), WriteFencing.of(guard));

            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(
                    () -> http11.send(write, HttpResponse.BodyHandlers.ofString())).isInstanceOf(FencedOutException.class));
            assertThat(guard.stillHeld()).isFalse();
        }
    }

    /** Answers the first request as the gateway answers a stale write: 412 at once, no 100, reading its body only if it is sent unasked. */
    private static void refuseWithoutContinue(ServerSocket server) {
        try (Socket socket = server.accept()) {
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            long length = 0;
            boolean expects = false;
            for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                String lower = line.toLowerCase(java.util.Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(lower.substring("content-length:".length()).trim());
                }
                expects |= lower.startsWith("expect:");
            }
            if (!expects) {
                in.skip(length);
            }
            byte[] body = ("{\"type\":\"urn:fencegate:problem:stale-token\",\"status\":412,\"token\":7,\"currentToken\":8}")
                    .getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("HTTP/1.1 412 Precondition Failed\r\nContent-Type: application/problem+json\r\nContent-Length: " + body.length
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            socket.shutdownOutput();
            in.skip(Long.MAX_VALUE);
        } catch (IOException e) {
            // The client went away: the test's own assertions say what happened.
        }
    }

    /**
     * The bound this client demands covers what happens between the check and the first byte of a
     * write over TLS too: a peer that takes the connection and never answers the handshake.
     */
    @Test
    void theConnectTimeoutAlsoBoundsATlsHandshakeThatNeverAnswers() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<Socket> held = new CopyOnWriteArrayList<>();
            Thread accepting = new Thread(() -> {
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (IOException e) {
                    // closed at the end of the test
                }
            }, "silent-tls-peer");
            accepting.setDaemon(true);
            accepting.start();
            FencedHttpClient tls = new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofMillis(300)).build(),
                    WriteFencing.of(guard));
            HttpRequest write = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + silent.getLocalPort() + "/b/report.csv"))
                    .PUT(HttpRequest.BodyPublishers.ofString("x")).build();

            long start = System.nanoTime();
            assertThatThrownBy(() -> tls.send(write, HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(HttpConnectTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("until the write gave up").isLessThan(Duration.ofSeconds(5));
            assertThat(held).as("the handshake was started").isNotEmpty();
            for (Socket socket : held) {
                socket.close();
            }
        }
    }

    /**
     * java.net.http reads jdk.httpclient.enableAllMethodRetry once, as the JVM makes its first
     * request, so the property unset when the client is built says nothing of whether the JDK sends
     * a write again after its connection closed without an answer; the lease may have been lost
     * meanwhile. The write is not sent again, and send says so. Run in a JVM of its own, where the
     * property is set as it may be in a worker's, around the first request.
     */
    @ParameterizedTest
    @CsvSource({
            JdkResendScenario.SET_AT_FIRST_REQUEST_THEN_CLEARED + ", PUT",
            JdkResendScenario.SET_AT_FIRST_REQUEST_THEN_CLEARED + ", DELETE",
            JdkResendScenario.SET_AFTER_THE_CLIENT_WAS_BUILT + ", PUT",
            JdkResendScenario.SET_AFTER_THE_CLIENT_WAS_BUILT + ", DELETE"})
    void aWriteIsNotSentAgainWhateverTheJdkReadOfItsRetryProperty(String order, String method, @TempDir Path dir) throws Exception {
        Path output = dir.resolve("scenario.out");
        Process scenario = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), JdkResendScenario.class.getName(), order, method)
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            assertThat(scenario.waitFor(60, TimeUnit.SECONDS)).as("the scenario ended; it printed:%n%s", read(output)).isTrue();
        } finally {
            scenario.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(output);
        assertThat(scenario.exitValue()).as("exit status; it printed:%n%s", lines).isZero();
        assertThat(lines).filteredOn(line -> line.startsWith("received ")).containsExactly("received " + method + " token=7 under the lease");
        assertThat(lines).filteredOn(line -> line.startsWith("send ")).singleElement().asString()
                .startsWith("send threw java.io.IOException: " + method + " /b/report.csv: the connection closed before an answer")
                .contains("was not sent again");
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file) : "";
    }

    @Test
    void aStoresOwn412ReachesTheCallerUnchangedAndLeavesTheLeaseHeld() throws Exception {
        HttpResponse<String> answer = http.send(request("/b/precondition").PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(412);
        assertThat(answer.body()).isEqualTo("the store's own precondition failed");
        assertThat(guard.stillHeld()).isTrue();
    }

    /**
     * java.net.http looks the host up as it connects, after the check, and its connect timeout
     * does not bound the lookup: the name is looked up before the lease is checked.
     */
    @Test
    void aNameLookupThatTakesPastTheLeaseIsMadeBeforeTheCheckSoTheWriteIsNotSent() {
        List<String> looked = new ArrayList<>();
        FencedHttpClient slowNames = new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build(),
                WriteFencing.of(guard), host -> {
                    looked.add(host);
                    clock.advance(Duration.ofSeconds(25)); // a resolver that answered late
                });
        assertThatThrownBy(() -> slowNames.send(request("/b/report.csv").PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(LeaseLostException.class).hasMessageContaining("ran out");
        assertThat(looked).containsExactly("127.0.0.1");
        assertThat(gateway.seen).isEmpty();
    }

    @Test
    void noWriteLeavesOnceTheLeaseRanOutByTheLocalClock() {
        clock.advance(Duration.ofSeconds(25));
        assertThatThrownBy(() -> http.send(request("/b/report.csv").PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(LeaseLostException.class).hasMessageContaining("ran out");
        assertThat(gateway.seen).isEmpty();
    }
}
