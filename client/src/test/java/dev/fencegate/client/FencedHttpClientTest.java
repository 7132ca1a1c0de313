package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FencedHttpClientTest {

    private final FakeTicker clock = new FakeTicker();
    private final Lease lease = new Lease("report", "worker-a", 7, Duration.ofSeconds(30));
    private final LeaseGuard guard = new LeaseGuard(lease, LeaseTiming.of(lease.ttl()), clock, clock.nanos());
    private FakeGateway gateway;
    private FencedHttpClient http;

    @BeforeEach
    void start() throws Exception {
        gateway = new FakeGateway();
        http = new FencedHttpClient(HttpClient.newHttpClient(), WriteFencing.of(guard).signedWith("v1=signature"));
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
        assertThat(write.headers().get("Fencing-Token-Signature")).containsExactly("v1=signature");
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

    @Test
    void aStoresOwn412ReachesTheCallerUnchangedAndLeavesTheLeaseHeld() throws Exception {
        HttpResponse<String> answer = http.send(request("/b/precondition").PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(412);
        assertThat(answer.body()).isEqualTo("the store's own precondition failed");
        assertThat(guard.stillHeld()).isTrue();
    }

    @Test
    void noWriteLeavesOnceTheLeaseRanOutByTheLocalClock() {
        clock.advance(Duration.ofSeconds(25));
        assertThatThrownBy(() -> http.send(request("/b/report.csv").PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(LeaseLostException.class).hasMessageContaining("ran out");
        assertThat(gateway.seen).isEmpty();
    }
}
