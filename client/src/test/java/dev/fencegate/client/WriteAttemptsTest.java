package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Authenticator;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Every attempt to send a write is an attempt under the lease: a client's own retries, redirects
 * and the thread a refusal is read on must not let a write leave after the lease was lost, nor
 * interrupt the worker for a refusal it is told of anyway.
 */
class WriteAttemptsTest {

    private final FakeTicker clock = new FakeTicker();
    private final Lease lease = new Lease("report", "worker-a", 7, Duration.ofSeconds(30));
    private final LeaseGuard guard = new LeaseGuard(lease, LeaseTiming.of(lease.ttl()), clock, clock.nanos());
    private final List<String> received = new CopyOnWriteArrayList<>();
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
        Thread.interrupted();
    }

    /** The SDK retries a 503 with the headers it signed once: the retry after the lease was lost is not sent. */
    @Test
    void anSdkRetryOfAWriteAfterTheLeaseWasLostIsNotSent() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            received.add(exchange.getRequestMethod() + " token=" + exchange.getRequestHeaders().getFirst("Fencing-Token"));
            if (calls.incrementAndGet() == 1) {
                guard.trip("the lease store refused the renewal");   // lost while the first attempt was out
                reply(exchange, 503, "<Error><Code>FencegateFenceUnavailable</Code><Message>x</Message></Error>");
            } else {
                reply(exchange, 200, "");
            }
        });
        server.start();
        try (S3Client s3 = S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .forcePathStyle(true).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("id", "secret")))
                .overrideConfiguration(o -> o.addExecutionInterceptor(new FencingInterceptor(WriteFencing.of(guard))))
                .build()) {
            Throwable thrown = catchThrowable(() -> s3.putObject(b -> b.bucket("b").key("report.csv"), RequestBody.fromString("x")));

            assertThat(LeaseLostException.in(thrown)).isPresent();
            assertThat(received).containsExactly("PUT token=7");
        }
    }

    /**
     * With {@code interruptOnLoss} on the worker, as the README shows, a refused write throws the
     * FencedOutException and leaves the worker's interrupt flag alone, every time.
     */
    @Test
    void aRefusedWriteThroughFencedHttpClientLeavesTheWorkersInterruptFlagAlone() throws Exception {
        try (FakeGateway gateway = new FakeGateway()) {
            gateway.fence.set(8);
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            for (int i = 0; i < 20; i++) {
                LeaseGuard fresh = new LeaseGuard(lease, LeaseTiming.of(lease.ttl()), clock, clock.nanos());
                fresh.interruptOnLoss(Thread.currentThread());
                FencedHttpClient http = new FencedHttpClient(client, WriteFencing.of(fresh));

                Throwable thrown = catchThrowable(() -> http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + gateway.port() + "/b/k")).PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
                        HttpResponse.BodyHandlers.ofString()));

                assertThat(thrown).as("attempt %d", i).isInstanceOf(FencedOutException.class);
                assertThat(Thread.interrupted()).as("attempt %d left the interrupt flag set", i).isFalse();
            }
        }
    }

    /** A client that follows redirects or answers 401s would send the write again unchecked: it is refused. */
    @Test
    void aClientThatWouldSendAWriteAgainUncheckedIsRefused() {
        assertThatThrownBy(() -> new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1))
                .followRedirects(HttpClient.Redirect.NORMAL).build(), WriteFencing.of(guard)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Redirect.NEVER");
        assertThatThrownBy(() -> new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1))
                .authenticator(new Authenticator() { }).build(), WriteFencing.of(guard)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Authenticator");
        new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build(), WriteFencing.of(guard));
    }

    /**
     * java.net.http starts each exchange on the client's executor: with one of its own, a write
     * checked against the lease could wait in its queue and leave after the lease ran out. With
     * {@code jdk.httpclient.enableAllMethodRetry} it sends a write again unchecked. Both are refused.
     */
    @Test
    void aClientThatCouldHoldOrRepeatACheckedWriteIsRefused() {
        ExecutorService own = Executors.newSingleThreadExecutor();
        try {
            assertThatThrownBy(() -> new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1))
                    .executor(own).build(), WriteFencing.of(guard)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("executor");
        } finally {
            own.shutdownNow();
        }
        // An empty value turns it on too, as the JDK reads it.
        for (String value : new String[] {"true", "", "TRUE"}) {
            System.setProperty(FencedHttpClient.RETRY_ALL_METHODS, value);
            try {
                assertThatThrownBy(() -> new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build(),
                        WriteFencing.of(guard))).as("'%s'", value)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(FencedHttpClient.RETRY_ALL_METHODS);
            } finally {
                System.clearProperty(FencedHttpClient.RETRY_ALL_METHODS);
            }
        }
        System.setProperty(FencedHttpClient.RETRY_ALL_METHODS, "false");
        try {
            new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build(), WriteFencing.of(guard));
        } finally {
            System.clearProperty(FencedHttpClient.RETRY_ALL_METHODS);
        }
    }

    /**
     * A write is checked against the lease before its connection is made and sent once it is: a
     * client that may take longer to connect than the lease's margin (6 s of a 30 s lease here) could
     * send it after the lease ran out, so it is refused.
     */
    @Test
    void aClientThatMayConnectLaterThanTheLeasesMarginIsRefused() {
        assertThatThrownBy(() -> new FencedHttpClient(HttpClient.newHttpClient(), WriteFencing.of(guard)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connect timeout none");
        assertThatThrownBy(() -> new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(6)).build(),
                WriteFencing.of(guard))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("below the lease's margin, PT6S");
        new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofMillis(5_999)).build(), WriteFencing.of(guard));
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/xml");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
