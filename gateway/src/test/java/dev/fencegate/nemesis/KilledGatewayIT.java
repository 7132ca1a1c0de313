package dev.fencegate.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.testing.NoNettyLeaks;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Crash liveness: a gateway killed (SIGKILL) with a write on its way to the store keeps higher
 * tokens waiting only until that write can no longer land, about one upstream timeout plus a
 * renewal interval, not for a long registration. The measured wait is printed.
 */
@ExtendWith(NoNettyLeaks.class)
class KilledGatewayIT {

    private static final Duration UPSTREAM_TIMEOUT = Duration.ofSeconds(5);
    /** Three upstream timeouts: the target (5 s + 1 s renewal) with room for a loaded machine. */
    private static final Duration BOUND = UPSTREAM_TIMEOUT.multipliedBy(3);

    private static TwoGateways gateways;

    @BeforeAll
    static void start() throws Exception {
        gateways = TwoGateways.start("killed", UPSTREAM_TIMEOUT);
    }

    @AfterAll
    static void stop() {
        if (gateways != null) {
            gateways.close();
        }
    }

    @Test
    void aHigherTokenLandsWithinTheUpstreamTimeoutAndARenewalAfterAGatewayIsKilledMidForward() throws Exception {
        String path = "/killed/mid-forward";
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        // The store holds the write 1.5 s, less than the upstream timeout: it lands after the kill.
        CompletableFuture<Integer> inFlight = CompletableFuture.supplyAsync(
                () -> Wire.put(http, gateways.victim.port(), path, 5, "old-5", 1500));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> gateways.store.requestCount() >= 1);
        gateways.victim.kill();
        long killed = System.nanoTime();
        assertThat(inFlight.get()).as("the killed gateway's worker has no answer").isEqualTo(Wire.NO_ANSWER);

        Wire.Landed raise = Wire.putUntilAnswered(gateways.other.port(), path, 6, "new-6", Duration.ofSeconds(60));
        Duration waited = Duration.ofNanos(System.nanoTime() - killed);
        System.out.printf("killed gateway: token 6 landed %d ms after SIGKILL (--upstream-timeout %s, %d attempts, bound %d ms)%n",
                waited.toMillis(), TwoGateways.seconds(UPSTREAM_TIMEOUT), raise.attempts(), BOUND.toMillis());
        assertThat(raise.status()).as("token 6 through the surviving instance").isIn(201, 204);
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> gateways.store.appliedTo(path).size() == 2);
        assertThat(gateways.store.appliedTo(path)).extracting(AppliedWrite::fencingToken).containsExactly("5", "6");
        assertThat(waited).as("time from SIGKILL to a higher token landing").isLessThan(BOUND);
    }
}
