package dev.fencegate.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.http.Outcome;
import dev.fencegate.testing.RawHttp;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.awaitility.Awaitility;

/** The steps and the verdict the focused scenarios share. */
final class Outcomes {

    /** The problem type a write whose admission ran out gets, once the gateway has one. */
    private static final String ADMISSION_EXPIRED = "admission-expired";
    private static final Duration RAISE_BOUND = Duration.ofSeconds(45);

    private Outcomes() {
    }

    /** Writes {@code token} through the victim until it holds the fence: a write admitted with no trip to PostgreSQL. */
    static void holdTheFence(TwoGateways gateways, String path, long token) throws InterruptedException {
        double before = Wire.heldAdmissions(gateways.victim.adminPort());
        for (int i = 1; i <= 20 && Wire.heldAdmissions(gateways.victim.adminPort()) <= before; i++) {
            int status = Wire.put(gateways.victim.port(), path, token, "holder-" + token + "." + i);
            assertThat(status).as("write %d at token %d through the victim", i, token).isIn(201, 204);
            Thread.sleep(50);
        }
        assertThat(Wire.heldAdmissions(gateways.victim.adminPort())).as("the victim holds the fence of %s", path)
                .isGreaterThan(before);
    }

    /**
     * Stops the victim, lets the old write's body reach its socket, raises through the other
     * instance until the higher token lands (the victim's registration must run out first),
     * resumes the victim and judges the old write.
     */
    static void pauseWhileAHigherTokenLands(TwoGateways gateways, String path, Wire.LateBody old) throws Exception {
        Wire.Landed raise;
        gateways.victim.pause();
        try {
            old.sendBody();
            raise = Wire.putUntilAnswered(gateways.other.port(), path, 6, "new-6", RAISE_BOUND);
        } finally {
            gateways.victim.resume();
        }
        System.out.printf("%s: token 6 landed through the other instance %d ms into the pause, after %d attempts%n",
                path, raise.took().toMillis(), raise.attempts());
        assertThat(raise.status()).as("token 6 through the other instance while the victim is paused").isIn(201, 204);
        assertOldWriteRefusedAndNotApplied(gateways, path, old);
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
