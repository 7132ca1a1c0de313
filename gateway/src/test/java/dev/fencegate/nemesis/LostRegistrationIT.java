package dev.fencegate.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.NoNettyLeaks;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An instance that admitted a write and then lost the registration it stood on, while running:
 * cut off from PostgreSQL until the row expired, or the row deleted under it. Another instance
 * then raises the fence and lands a higher token; the old write's body arrives afterwards, well
 * within the client idle timeout. It must not reach the store.
 */
@ExtendWith(NoNettyLeaks.class)
class LostRegistrationIT {

    private static TwoGateways gateways;

    @BeforeAll
    static void start() throws Exception {
        gateways = TwoGateways.start("lost_registration", Duration.ofSeconds(1));
    }

    @AfterAll
    static void stop() {
        if (gateways != null) {
            gateways.close();
        }
    }

    @Test
    void aGatewayCutFromPostgresWithASlowClientNeverAppliesTheOldWriteAfterAHigherToken() throws Exception {
        String path = "/cut/slow-client";
        try (Wire.LateBody old = Wire.LateBody.open(gateways.victim.port(), path, 5, "old-5")) {
            Outcomes.awaitFence(gateways, path, 5);
            gateways.relay.cut();
            try {
                Wire.Landed raise = Wire.putUntilAnswered(gateways.other.port(), path, 6, "new-6", Duration.ofSeconds(45));
                System.out.printf("%s: token 6 landed %d ms after the victim was cut from PostgreSQL%n", path, raise.took().toMillis());
                assertThat(raise.status()).as("token 6 through the other instance").isIn(201, 204);
                // The worker was slow, not gone: its body comes now, long before --client-idle-timeout.
                old.sendBody();
                Outcomes.assertOldWriteRefusedAndNotApplied(gateways, path, old);
            } finally {
                gateways.relay.restore();
            }
        }
    }

    @Test
    void aRegistrationDeletedWhileItsInstanceHoldsTheFenceLetsNoOldWriteLandAfterAHigherToken() throws Exception {
        String path = "/lost-row/held";
        Outcomes.holdTheFence(gateways, path, 5);
        double heldBefore = Wire.heldAdmissions(gateways.victim.adminPort());
        try (Wire.LateBody old = Wire.LateBody.open(gateways.victim.port(), path, 5, "old-5")) {
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> Wire.heldAdmissions(gateways.victim.adminPort()) > heldBefore);
            assertThat(gateways.fences.deleteRegistrations()).as("registration rows deleted").isPositive();

            Wire.Landed raise = Wire.putUntilAnswered(gateways.other.port(), path, 6, "new-6", Duration.ofSeconds(45));
            assertThat(raise.status()).as("token 6 through the other instance").isIn(201, 204);
            old.sendBody();
            Outcomes.assertOldWriteRefusedAndNotApplied(gateways, path, old);
        }
        // Nor does the victim admit its old token afresh once the higher one landed.
        assertThat(Wire.put(gateways.victim.port(), path, 5, "again-5")).isEqualTo(412);
        assertThat(ApplyOrder.appliedId(gateways.store.appliedTo(path), "again-5")).isFalse();
    }
}
