package dev.fencegate.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencegate.config.HostPort;
import dev.fencegate.config.OperationsConfig;
import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.InMemoryFenceStore;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.proxy.AdminServer;
import dev.fencegate.proxy.ConnectionBounds;
import dev.fencegate.testing.RawHttp;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The fence endpoints over a real socket: escapes survive to the route, and the token is checked on the wire. */
class AdminServerTest {

    private static final String TOKEN = "admin-token-0123456789";

    private final InMemoryFenceStore store = new InMemoryFenceStore();
    private final HttpClient http = HttpClient.newHttpClient();

    /**
     * Bound to loopback with no token configured (what GatewayConfig allows): no credentials needed.
     * The key /bucket/a%20b.csv is named by encoding it once more, so its own escape survives.
     */
    @Test
    void onALoopbackPortWithoutATokenAnyLocalCallerMayRaise() throws Exception {
        AdminAuth auth = AdminAuth.of(OperationsConfig.defaults().adminTokenIfSet());
        try (AdminServer server = start(auth)) {
            HttpResponse<String> raised = send(server, "POST", "/fences/%2Fbucket%2Fa%2520b.csv?token=41", null);
            HttpResponse<String> read = send(server, "GET", "/fences/%2Fbucket%2Fa%2520b.csv", null);

            assertThat(raised.statusCode()).as(raised.body()).isEqualTo(200);
            assertThat(read.body()).isEqualTo("{\"resource\":\"/bucket/a%20b.csv\",\"token\":41,\"holder\":null}");
            assertThat(store.read(new ResourceKey("/bucket/a%20b.csv")).map(Fence::token)).contains(new FencingToken(41));
        }
    }

    @Test
    void withATokenTheWireAnswers401WithAChallengeUnlessTheBearerMatches() throws Exception {
        try (AdminServer server = start(AdminAuth.bearer(TOKEN))) {
            HttpResponse<String> refused = send(server, "POST", "/fences/%2Fb%2Fk?token=2", null);
            HttpResponse<String> served = send(server, "POST", "/fences/%2Fb%2Fk?token=2", "Bearer " + TOKEN);

            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.headers().firstValue("WWW-Authenticate")).contains("Bearer realm=\"fencegate-admin\"");
            assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
            assertThat(send(server, "GET", "/livez", null).statusCode()).isEqualTo(200);
        }
    }

    /**
     * A raise may block for seconds (the fence store is slow, or writes below it are still in
     * flight): probes and scrapes on other connections are answered meanwhile, so a liveness
     * probe never fails behind an operator's raise.
     */
    @Test
    void probesAreAnsweredWhileRaisesWaitOnTheFenceStore() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        FenceAdmin slow = raisesWaitingFor(release);
        try (AdminServer server = AdminServer.start(new HostPort("127.0.0.1", 0), new AdminEndpoints(new Readiness(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), slow, AdminAuth.loopbackOnly(), ClaimRules.plain()))) {
            List<CompletableFuture<HttpResponse<String>>> raises = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                raises.add(HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                        + "/fences/%2Fb%2Fk" + i + "?token=2")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            Thread.sleep(200);
            for (String probe : List.of("/livez", "/readyz", "/metrics")) {
                HttpResponse<String> answered = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + probe)).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(answered.statusCode()).as(probe).isIn(200, 503);
            }
            assertThat(raises).noneMatch(CompletableFuture::isDone);

            release.countDown();
            for (CompletableFuture<HttpResponse<String>> raise : raises) {
                assertThat(raise.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
        }
    }

    /**
     * A raise pipelined behind a probe waits on the fence store past the idle timeout: the probe's
     * answer is not the raise's, so no 408 goes out while the raise is under way (it would commit
     * after the client was told it timed out), and the raise's own answer comes.
     */
    @Test
    void aSlowRaisePipelinedBehindAProbeGetsItsOwnAnswerNotA408() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (AdminServer server = AdminServer.start(new HostPort("127.0.0.1", 0), new AdminEndpoints(new Readiness(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), raisesWaitingFor(release), AdminAuth.loopbackOnly(),
                ClaimRules.plain()), new ConnectionBounds(Duration.ofSeconds(1), Duration.ofSeconds(10), 100));
             RawHttp raw = RawHttp.connect(server.port())) {
            raw.timeout(10_000);
            raw.send("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    + "POST /fences/%2Fb%2Fk?token=7 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            Thread.sleep(2_500); // past the idle timeout, the raise still waiting on the store
            release.countDown();
            String received = raw.readToClose();

            assertThat(received).doesNotContain("408").contains("\"token\":7");
            assertThat(store.read(new ResourceKey("/b/k")).orElseThrow().token().value()).isEqualTo(7);
        }
    }

    /** A fence admin whose raises wait for {@code release} before they reach the store. */
    private FenceAdmin raisesWaitingFor(CountDownLatch release) {
        return new FenceAdmin() {
            @Override
            public Optional<Fence> read(ResourceKey resource) {
                return store.read(resource);
            }

            @Override
            public FenceDecision raise(ResourceKey resource, FencingToken token) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return store.admit(new FenceClaim(resource, token, Optional.empty()));
            }
        };
    }

    /** An answer that cannot be made closes the connection: the requests behind it never wait for it. */
    @Test
    void aRequestThatCannotBeAnsweredClosesItsConnectionRatherThanHoldTheNextOnes() throws Exception {
        FenceAdmin broken = new FenceAdmin() {
            @Override
            public Optional<Fence> read(ResourceKey resource) {
                throw new AssertionError("broken by the test");
            }

            @Override
            public FenceDecision raise(ResourceKey resource, FencingToken token) {
                throw new AssertionError("broken by the test");
            }
        };
        try (AdminServer server = AdminServer.start(new HostPort("127.0.0.1", 0), new AdminEndpoints(new Readiness(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), broken, AdminAuth.loopbackOnly(), ClaimRules.plain()));
             RawHttp raw = RawHttp.connect(server.port())) {
            raw.timeout(5_000);
            String answered = raw.send("GET /fences/%2Fb%2Fk HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    + "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").readToClose();
            assertThat(answered).as("nothing answered before the close").isEmpty();
        }
    }

    /**
     * Anyone who can reach the port may scrape it: a client that pipelines scrapes and reads none
     * of the answers used to have the gateway hold every metrics text it asked for, until the heap
     * ran out. Past a few requests unanswered, its connection is closed.
     */
    @Test
    void aClientThatPipelinesScrapesAndReadsNoneIsDisconnected() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        for (int i = 0; i < 1_000; i++) {
            registry.counter("fencegate_test_series", "n", Integer.toString(i)).increment();
        }
        try (AdminServer server = AdminServer.start(new HostPort("127.0.0.1", 0), new AdminEndpoints(new Readiness(),
                registry, FenceAdmin.over(store), AdminAuth.loopbackOnly(), ClaimRules.plain()));
             Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4 * 1024);
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(100)
                    .getBytes(StandardCharsets.US_ASCII));
            Thread.sleep(1_000); // reading nothing meanwhile

            String received = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            int answers = received.split("HTTP/1.1 200", -1).length - 1;
            assertThat(answers).as("answers before the close").isLessThan(100);
            assertThat(send(server, "GET", "/livez", null).statusCode()).as("the port serves others").isEqualTo(200);
        }
    }

    /**
     * Past the requests a connection may have unanswered, the next is not acted on: the ones
     * answered are exactly the ones done, so no raise commits without its answer reaching the
     * client, which asks again on another connection.
     */
    @Test
    void pipelinedPastTheCapTheRequestsAnsweredAreExactlyTheOnesActedOn() throws Exception {
        try (AdminServer server = start(AdminAuth.loopbackOnly()); RawHttp raw = RawHttp.connect(server.port())) {
            raw.timeout(10_000);
            StringBuilder pipelined = new StringBuilder();
            for (int i = 0; i < 7; i++) {
                pipelined.append("POST /fences/%2Fp%2Fk").append(i).append("?token=7 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            }
            String received = raw.send(pipelined.toString()).readToClose();

            int answered = received.split("HTTP/1.1 200", -1).length - 1;
            assertThat(answered).as(received).isBetween(1, 6);
            for (int i = 0; i < 7; i++) {
                assertThat(store.read(new ResourceKey("/p/k" + i)).isPresent()).as("/p/k%d raised", i).isEqualTo(i < answered);
            }
        }
    }

    /** Probes and scrapers need a few connections; the data port's cap of thousands would let a flood take the heap. */
    @Test
    void theAdminPortTakesAtMostItsOwnCapOfConnectionsWhateverTheDataPortsCap() throws Exception {
        List<RawHttp> held = new ArrayList<>();
        try (AdminServer server = AdminServer.start(new HostPort("127.0.0.1", 0), new AdminEndpoints(new Readiness(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), FenceAdmin.over(store), AdminAuth.loopbackOnly(),
                ClaimRules.plain()), new ConnectionBounds(Duration.ofSeconds(30), Duration.ofSeconds(10), 10_000))) {
            for (int i = 0; i < AdminServer.MOST_CONNECTIONS; i++) {
                RawHttp raw = RawHttp.connect(server.port());
                raw.timeout(5_000);
                held.add(raw);
            }
            assertThat(RawHttp.status(held.get(held.size() - 1).send("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    .readResponse())).as("the last within the cap").isEqualTo(200);
            try (RawHttp extra = RawHttp.connect(server.port())) {
                extra.timeout(5_000);
                assertThat(extra.closedByPeer()).as("one past the cap").isTrue();
            }
        } finally {
            for (RawHttp raw : held) {
                raw.close();
            }
        }
    }

    /**
     * The start checks its ports are free before it touches the fence database, but another
     * process can take one after that: the start then stops on the same one-line bad setting, not
     * a stack trace.
     */
    @Test
    void aPortTakenAfterTheStartCheckedItIsABadSettingNamingTheFlag() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            HostPort address = new HostPort("127.0.0.1", taken.getLocalPort());
            assertThatThrownBy(() -> AdminServer.start(address, new AdminEndpoints(new Readiness(),
                    new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), FenceAdmin.over(store), AdminAuth.loopbackOnly(),
                    ClaimRules.plain()))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--admin-listen: " + address + " (expected an address this process can listen on")
                    .hasMessageContaining("in use").hasMessageContaining("took it while this gateway started");
        }
    }

    private AdminServer start(AdminAuth auth) throws InterruptedException {
        return AdminServer.start(new HostPort("127.0.0.1", 0), new AdminEndpoints(new Readiness(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), FenceAdmin.over(store), auth, ClaimRules.plain()));
    }

    private HttpResponse<String> send(AdminServer server, String method, String target, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + target))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
