package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.store.DurabilityGuard.Reading;
import dev.fencegate.store.DurabilityGuard.Verdict;
import org.junit.jupiter.api.Test;

/** The plain-words verdict on what an acknowledged fence means, for each kind of deployment. */
class DurabilityGuardTest {

    private static Reading standalone() {
        return new Reading("on", "on", "", false, false, 0, 0);
    }

    @Test
    void aStandaloneServerWithFsyncAndSynchronousCommitIsSafe() {
        Verdict verdict = DurabilityGuard.judge(standalone(), false);
        assertThat(verdict.safe()).isTrue();
        assertThat(verdict.words()).contains("survives a crash");
    }

    @Test
    void settingsThatCanLoseAcknowledgedCommitsAreUnsafe() {
        assertThat(DurabilityGuard.judge(new Reading("off", "on", "", false, false, 0, 0), false).words()).contains("fsync is off");
        assertThat(DurabilityGuard.judge(new Reading("on", "off", "", false, false, 0, 0), false).words()).contains("synchronous_commit is off");
        assertThat(DurabilityGuard.judge(new Reading("on", "on", "", false, false, 0, 2), false).words()).contains("2 asynchronous standby");
        assertThat(DurabilityGuard.judge(new Reading("on", "local", "s1", false, false, 1, 0), false).words()).contains("synchronous_commit is local");
        assertThat(DurabilityGuard.judge(new Reading("on", "on", "", true, false, 0, 0), false).words()).contains("standby in recovery");
        assertThat(DurabilityGuard.judge(new Reading("on", "on", "", false, true, 0, 0), false).words()).contains("read-only");
        for (Reading unsafe : new Reading[] {
                new Reading("off", "on", "", false, false, 0, 0), new Reading("on", "off", "", false, false, 0, 0),
                new Reading("on", "on", "", false, false, 0, 2), new Reading("on", "local", "s1", false, false, 1, 0),
                new Reading("on", "on", "s1", false, false, 0, 0)}) {
            assertThat(DurabilityGuard.judge(unsafe, false).safe()).as(unsafe.toString()).isFalse();
        }
    }

    @Test
    void aRequiredSynchronousStandbyMustBeConfiguredAndConnected() {
        assertThat(DurabilityGuard.judge(standalone(), true).safe()).isFalse();
        assertThat(DurabilityGuard.judge(new Reading("on", "on", "s1", false, false, 0, 0), true).safe()).isFalse();
        Verdict confirmed = DurabilityGuard.judge(new Reading("on", "remote_apply", "s1", false, false, 1, 0), true);
        assertThat(confirmed.safe()).isTrue();
        assertThat(confirmed.words()).contains("confirmed by 1 synchronous standby");
    }
}
