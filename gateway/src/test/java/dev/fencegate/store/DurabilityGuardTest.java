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

    /**
     * A role without pg_read_all_stats sees pg_stat_replication's rows with their state empty: a
     * synchronous standby would read as none connected, or as asynchronous. Said as it is, and refused.
     */
    @Test
    void standbysWhoseStateTheRoleMayNotReadAreNamedAsSuchAndRefused() {
        for (String names : new String[] {"s1", ""}) {
            Verdict hidden = DurabilityGuard.judge(new Reading("on", "on", names, false, false, 0, 1, 1), false);
            assertThat(hidden.safe()).as(names).isFalse();
            assertThat(hidden.words()).as(names).startsWith("1 standby(s) whose state the gateway's database role may not read")
                    .contains("grant the role pg_monitor");
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

    /**
     * After a failover the new primary's standbys take a while to reattach, and Patroni's
     * synchronous mode empties synchronous_standby_names meanwhile: the reading is a single
     * server's. Without being told, the guard calls it safe and says what to set; told that the
     * database is replicated, it refuses until a synchronous standby is back.
     */
    @Test
    void aReplicatedClusterWhoseStandbysAreAwayIsRefusedOnlyWhenTheOperatorSaysItIsReplicated() {
        Reading afterFailover = new Reading("on", "on", "", false, false, 0, 0);

        Verdict unknowing = DurabilityGuard.judge(afterFailover, false);
        assertThat(unknowing.safe()).isTrue();
        assertThat(unknowing.words()).contains("not the loss of the server").contains("--require-sync-standby");

        Verdict replicated = DurabilityGuard.judge(afterFailover, true);
        assertThat(replicated.safe()).isFalse();
        assertThat(replicated.words()).contains("standbys are away");

        Verdict reattached = DurabilityGuard.judge(new Reading("on", "on", "node2", false, false, 1, 1), true);
        assertThat(reattached.safe()).isTrue();
        assertThat(reattached.words()).contains("confirmed by 1 synchronous standby");
    }
}
