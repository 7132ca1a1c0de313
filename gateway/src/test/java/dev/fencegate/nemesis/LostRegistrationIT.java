package dev.fencegate.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.testing.AdminMetrics;
import dev.fencegate.testing.NoNettyLeaks;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An instance that lost the registration its writes stood on, while running: cut off from
 * PostgreSQL until the row expired, or the row deleted under it (an asynchronous replica
 * promoted, an operator). Another instance then raises the fence and lands a higher token. A
 * write the instance admitted before, whose body arrives afterwards (well within the client idle
 * timeout), must not reach the store; nor may the instance admit the old token afresh.
 */
@ExtendWith(NoNettyLeaks.class)
class LostRegistrationIT {

    /**
     * How long an instance may take to hear of a raise it was not asked to wait for: the README's
     * residual window for a lost registration row is "within about a second".
     */
    private static final Duration ANNOUNCEMENT_BOUND = Duration.ofMillis(1_500);

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
    void aHeldFenceWhoseRegistrationRowWasDeletedAdmitsNoOldTokenAfterAHigherOneLanded() throws Exception {
        String path = "/lost-row/held";
        Outcomes.holdTheFence(gateways, path, 5);
        assertThat(gateways.fences.deleteRegistrations()).as("registration rows deleted").isPositive();
        // Nothing stands in the way of the raise now: it lands at once, and must be heard of.
        Wire.Landed raise = Wire.putUntilAnswered(gateways.other.port(), path, 6, "new-6", Duration.ofSeconds(45));
        assertThat(raise.status()).as("token 6 through the other instance").isIn(201, 204);
        Thread.sleep(ANNOUNCEMENT_BOUND.toMillis());

        int status = Wire.put(gateways.victim.port(), path, 5, "again-5");
        List<AppliedWrite> applied = gateways.store.appliedTo(path);
        assertThat(ApplyOrder.regressions(applied)).as("tokens going down in the store's apply order").isEmpty();
        assertThat(ApplyOrder.appliedId(applied, "again-5")).as("the old token reached the store: %s", applied).isFalse();
        assertThat(status).as("the old token at the instance that held the fence").isEqualTo(412);
    }

    @Test
    void aWriteAdmittedUnderADeletedRegistrationIsNotSentAfterAHigherTokenLanded() throws Exception {
        String path = "/lost-row/in-flight";
        Outcomes.holdTheFence(gateways, path, 5);
        double heldBefore = AdminMetrics.heldAdmissions(gateways.victim.adminPort());
        try (Wire.LateBody old = Wire.LateBody.open(gateways.victim.port(), path, 5, "old-5")) {
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> AdminMetrics.heldAdmissions(gateways.victim.adminPort()) > heldBefore);
            assertThat(gateways.fences.deleteRegistrations()).as("registration rows deleted").isPositive();
            Wire.Landed raise = Wire.putUntilAnswered(gateways.other.port(), path, 6, "new-6", Duration.ofSeconds(45));
            assertThat(raise.status()).as("token 6 through the other instance").isIn(201, 204);
            Thread.sleep(ANNOUNCEMENT_BOUND.toMillis());
            old.sendBody();
            Outcomes.assertOldWriteRefusedAndNotApplied(gateways, path, old);
        }
    }
}
