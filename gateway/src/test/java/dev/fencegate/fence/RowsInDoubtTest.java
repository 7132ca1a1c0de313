package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Rows a write may have committed though its answer was lost: written again once the database
 * answers, to learn them, then withdrawn; never trusted to cover a claim, and never kept past the
 * time such a row would have expired on its own.
 */
class RowsInDoubtTest {

    private static final ResourceKey KEY = new ResourceKey("/jobs/7");

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    /** No connection to be had: nothing is sent. */
    private boolean down;
    /** Connections are had, and every statement times out: each may have committed. */
    private boolean hung;
    /** The next write commits, and its answer is lost. */
    private boolean loseNext;
    private final List<ResourceKey> written = new ArrayList<>();
    private Runnable afterRowsWritten = () -> { };
    private final RegistrationRows rows = new RegistrationRows() {
        @Override
        public List<Written> write(Map<ResourceKey, Long> minTokens, Duration length) {
            if (down) {
                throw new FenceStoreUnavailableException("no connection");
            }
            if (hung) {
                throw new FenceStoreUnavailableException("statement timeout", null, true);
            }
            written.addAll(minTokens.keySet());
            if (loseNext) {
                loseNext = false;
                throw new FenceStoreUnavailableException("connection lost as the rows committed", null, true);
            }
            List<Written> rowsWritten = RegistrationRows.NONE.write(minTokens, length);
            Runnable then = afterRowsWritten;
            afterRowsWritten = () -> { };
            then.run();
            return rowsWritten;
        }

        @Override
        public void tidy(List<Change> withdrawals, List<Change> narrowings) {
        }

        @Override
        public void withdrawAll() {
        }
    };
    /** Rows last 5 s + 3 s. */
    private final InstanceFences local = new InstanceFences(rows,
            new LeaseTiming(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(10)), clock::get);
    private final InMemoryFenceStore store = new InMemoryFenceStore();
    private final FenceAdmission admission = new FenceAdmission(store, local, new RememberedFences(100), claim -> { });

    private void lostAsItCommitted(FenceClaim claim) {
        loseNext = true;
        local.enter(claim);
        assertThat(admission.attempt(claim)).isInstanceOf(FenceDecision.Unavailable.class);
        local.exit(claim);
        written.clear();
    }

    private void sweepsFor(Duration duration) {
        for (long s = 0; s < duration.toSeconds(); s++) {
            clock.addAndGet(Duration.ofSeconds(1).toNanos());
            local.reconcile();
        }
    }

    /** Through an outage longer than a row lasts, with no statement sent: the row has expired by then and is not written again. */
    @Test
    void aRowInDoubtIsNotWrittenAgainOnceItWouldHaveExpired() {
        lostAsItCommitted(new FenceClaim(KEY, new FencingToken(3), Optional.empty()));

        down = true;
        sweepsFor(Duration.ofSeconds(60));
        down = false;
        sweepsFor(Duration.ofSeconds(2));

        assertThat(written).isEmpty();
        assertThat(local.resourcesKept()).isZero();
    }

    /**
     * The row written again only to learn it is deleted by hand right after, and the notice comes
     * before the write is recorded: nothing watched the resource, so the lease it starts covers no
     * claim, and the next claim writes its own row.
     */
    @Test
    void aRowWrittenAgainOnlyToLearnItCoversNoClaim() {
        lostAsItCommitted(new FenceClaim(KEY, new FencingToken(3), Optional.empty()));
        afterRowsWritten = () -> local.heard(KEY, OptionalLong.empty());
        sweepsFor(Duration.ofSeconds(1));
        assertThat(written).as("written again").containsExactly(KEY);
        written.clear();

        local.listenerConfirmed(clock.get());
        FenceClaim next = new FenceClaim(KEY, new FencingToken(5), Optional.empty());
        local.enter(next);
        assertThat(admission.attempt(next)).isInstanceOf(FenceDecision.Admitted.class);

        assertThat(written).as("the claim's own row").containsExactly(KEY);
    }

    /** A database that hangs: every statement sent may have committed, so rows stay in doubt until it answers, then go. */
    @Test
    void rowsInDoubtWhileTheDatabaseHangsAreWithdrawnOnceItAnswers() {
        hung = true;
        for (int i = 0; i < 1_000; i++) {
            FenceClaim claim = new FenceClaim(new ResourceKey("/new/" + i), new FencingToken(1), Optional.empty());
            local.enter(claim);
            assertThat(admission.attempt(claim)).isInstanceOf(FenceDecision.Unavailable.class);
            local.exit(claim);
        }
        sweepsFor(Duration.ofSeconds(30));
        hung = false;
        sweepsFor(Duration.ofSeconds(3));

        assertThat(written).hasSize(1_000);
        assertThat(local.resourcesKept()).isZero();
    }

    /**
     * A claim's batch commits its row before the sweep writes the same row again for a batch in
     * doubt, but the claim's commit is recorded after the sweep's: the row has the sweep's
     * generation, and the withdrawal must name that one, or the row stays until it expires.
     */
    @Test
    void aClaimsRowRecordedAfterTheSweepWroteItAgainIsStillWithdrawn() {
        GenerationTable table = new GenerationTable();
        InstanceFences fences = new InstanceFences(table,
                new LeaseTiming(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(10)), clock::get);
        table.write(Map.of(KEY, 3L), Duration.ofSeconds(8));
        fences.rowsInDoubt(Map.of(KEY, 3L));

        FenceClaim claim = new FenceClaim(KEY, new FencingToken(5), Optional.empty());
        fences.enter(claim);
        BatchRegistration registration = fences.register(List.of(claim));
        List<RegistrationRows.Written> claimsRows = table.write(registration.minTokens(), registration.length());
        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        fences.reconcile();
        registration.written(claimsRows);
        fences.exit(claim);
        for (int s = 0; s < 12; s++) {
            clock.addAndGet(Duration.ofSeconds(1).toNanos());
            fences.reconcile();
        }

        assertThat(table.rows).isEmpty();
        assertThat(fences.resourcesKept()).isZero();
    }

    /** However many rows a hanging database leaves in doubt, the instance keeps at most {@link RowsInDoubt#MOST}. */
    @Test
    void rowsInDoubtAreBoundedInNumber() {
        Map<ResourceKey, Long> many = new HashMap<>();
        for (int i = 0; i < RowsInDoubt.MOST + 5_000; i++) {
            many.put(new ResourceKey("/new/" + i), 1L);
        }

        local.rowsInDoubt(many);

        assertThat(local.resourcesKept()).isEqualTo(RowsInDoubt.MOST);
    }

    /** As {@code fence_inflight}: a write bumps the row's generation and keeps the lower minimum; a withdrawal names the generation. */
    private static final class GenerationTable implements RegistrationRows {

        /** resource to {minToken, generation} */
        final Map<ResourceKey, long[]> rows = new HashMap<>();

        @Override
        public List<Written> write(Map<ResourceKey, Long> minTokens, Duration length) {
            List<Written> written = new ArrayList<>();
            minTokens.forEach((resource, minToken) -> {
                long[] row = rows.get(resource);
                row = row == null ? new long[] {minToken, 1} : new long[] {Math.min(row[0], minToken), row[1] + 1};
                rows.put(resource, row);
                written.add(new Written(resource, row[0], row[1]));
            });
            return written;
        }

        @Override
        public void tidy(List<Change> withdrawals, List<Change> narrowings) {
            for (Change change : withdrawals) {
                long[] row = rows.get(change.resource());
                if (row != null && row[1] == change.generation()) {
                    rows.remove(change.resource());
                }
            }
        }

        @Override
        public void withdrawAll() {
        }
    }
}
