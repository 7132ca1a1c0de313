package dev.fencegate.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.http.Outcome;
import dev.fencegate.testing.AdminMetrics;
import dev.fencegate.testing.RawHttp;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.awaitility.Awaitility;

/** The steps and the verdict the focused scenarios share. */
final class Outcomes {

    /** The problem type a write whose admission ran out gets, once the gateway has one. */
    private static final String ADMISSION_EXPIRED = "admission-expired";

    private Outcomes() {
    }

    /**
     * Writes {@code token} through the victim until it holds the fence: a write admitted with no
     * trip to PostgreSQL. First waits for the victim to be ready: after a scenario that cut it off,
     * it serves writes again only once a check of the fence database has passed.
     */
    static void holdTheFence(TwoGateways gateways, String path, long token) throws InterruptedException {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> AdminMetrics.ready(gateways.victim.adminPort()));
        double before = AdminMetrics.heldAdmissions(gateways.victim.adminPort());
        for (int i = 1; i <= 20 && AdminMetrics.heldAdmissions(gateways.victim.adminPort()) <= before; i++) {
            int status = Wire.put(gateways.victim.port(), path, token, "holder-" + token + "." + i);
            assertThat(status).as("write %d at token %d through the victim", i, token).isIn(201, 204);
            Thread.sleep(50);
        }
        assertThat(AdminMetrics.heldAdmissions(gateways.victim.adminPort())).as("the victim holds the fence of %s", path)
                .isGreaterThan(before);
    }

    /**
     * The guarantee on the wire: the store never applied the old write after the higher token
     * (it did not apply it at all), and its worker was told so with a 5xx.
     */
    static void assertOldWriteRefusedAndNotApplied(TwoGateways gateways, String path, Wire.LateBody old) throws InterruptedException {
        String response = old.response(Duration.ofSeconds(20));
        // Anything the store still applies comes within the upstream timeout of the last byte sent.
        Thread.sleep(gateways.upstreamTimeout.toMillis() + 500);
        List<AppliedWrite> applied = gateways.store.appliedTo(path);
        assertThat(ApplyOrder.regressions(applied)).as("tokens going down in the store's apply order").isEmpty();
        assertThat(ApplyOrder.appliedId(applied, "old-5")).as("the old write reached the store: %s", applied).isFalse();
        assertThat(response).as("the old write's worker gets an answer").isNotEmpty();
        assertThat(RawHttp.status(response)).as("the old write's answer: %s", response).isBetween(500, 599);
        if (Arrays.stream(Outcome.values()).anyMatch(outcome -> outcome.tag().equals(ADMISSION_EXPIRED))) {
            assertThat(response).contains("urn:fencegate:problem:" + ADMISSION_EXPIRED);
        }
    }

    static void awaitFence(TwoGateways gateways, String path, long token) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> gateways.fences.fence(path) == token);
    }
}
