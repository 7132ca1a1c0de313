package dev.fencegate.nemesis;

import dev.fencegate.testing.NoNettyLeaks;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The seeds' paused worker is the gateway too: an instance stopped (SIGSTOP) after it admitted a
 * write and before the write's bytes went to the store, for longer than its registration lives,
 * while another instance raises the fence and lands a higher token. When it runs again, the old
 * write must not reach the store: the worker gets a 5xx and the store never applies it.
 */
@ExtendWith(NoNettyLeaks.class)
class PausedGatewayIT {

    private static TwoGateways gateways;

    @BeforeAll
    static void start() throws Exception {
        // A registration lives a few seconds with a one-second upstream timeout, so the pause can outlast it.
        gateways = TwoGateways.start("paused", Duration.ofSeconds(1));
    }

    @AfterAll
    static void stop() {
        if (gateways != null) {
            gateways.close();
        }
    }

    @Test
    void aGatewayPausedBetweenAdmittingAFirstWriteAndForwardingItNeverAppliesItAfterAHigherToken() throws Exception {
        String path = "/paused/first-write";
        try (Wire.LateBody old = Wire.LateBody.open(gateways.victim.port(), path, 5, "old-5")) {
            // The fence row is written when the write is admitted; its body has not been sent yet.
            Outcomes.awaitFence(gateways, path, 5);
            Outcomes.pauseWhileAHigherTokenLands(gateways, path, old);
        }
    }

    @Test
    void aGatewayPausedBetweenAdmittingAHeldWriteAndForwardingItNeverAppliesItAfterAHigherToken() throws Exception {
        String path = "/paused/held-write";
        Outcomes.holdTheFence(gateways, path, 5);
        double heldBefore = Wire.heldAdmissions(gateways.victim.adminPort());
        try (Wire.LateBody old = Wire.LateBody.open(gateways.victim.port(), path, 5, "old-5")) {
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> Wire.heldAdmissions(gateways.victim.adminPort()) > heldBefore);
            Outcomes.pauseWhileAHigherTokenLands(gateways, path, old);
        }
    }
}
