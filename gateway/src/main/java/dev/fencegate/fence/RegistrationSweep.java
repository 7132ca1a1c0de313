package dev.fencegate.fence;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The sweep of this instance's registration rows: withdraws idle and expired rows, narrows rows
 * whose lowest write in flight went up, renews rows written under since they were last written,
 * and writes rows in doubt again. {@link InstanceFences} decides what to do with each row under
 * its lock, one resource at a time, not across the sweep (event loops enter claims under it);
 * the statements run here, outside the lock.
 */
final class RegistrationSweep {

    private final InstanceFences fences;
    private final RegistrationRows rows;

    /** What one sweep writes. */
    static final class Plan {
        final List<RegistrationRows.Change> withdrawals = new ArrayList<>();
        final List<RegistrationRows.Change> narrowings = new ArrayList<>();
        final Map<ResourceKey, Long> renewals = new TreeMap<>(Comparator.comparing(ResourceKey::value));
    }

    RegistrationSweep(InstanceFences fences, RegistrationRows rows) {
        this.fences = fences;
        this.rows = rows;
    }

    /** Every row of this instance, and the rows in doubt due to be written again. */
    void full() {
        Map<ResourceKey, RowsInDoubt.Row> doubtful = new HashMap<>();
        List<ResourceKey> all = fences.startFullSweep(doubtful);
        run(all, true, doubtful);
    }

    /** Only the rows another instance waits on: cheap enough to run often. */
    void wanted() {
        List<ResourceKey> some = fences.wantedElsewhere();
        if (!some.isEmpty()) {
            run(some, false, Map.of());
        }
    }

    /**
     * {@code rewrite}: rows in doubt, written again after the renewals, in a statement of their own
     * (a slow one costs no renewal); once written they are known, unless another write put them in
     * doubt again meanwhile (a failed write that was sent does).
     */
    private void run(List<ResourceKey> resources, boolean renew, Map<ResourceKey, RowsInDoubt.Row> rewrite) {
        Plan plan = new Plan();
        long now = fences.now();
        for (ResourceKey resource : resources) {
            fences.sweep(resource, renew, now, plan);
        }
        if (!plan.renewals.isEmpty()) {
            try {
                fences.write(plan.renewals, Set.of());
            } catch (FenceStoreUnavailableException e) {
                // Writes under these leases close when their windows run out; new ones get 503.
            }
        }
        if (!rewrite.isEmpty()) {
            Map<ResourceKey, Long> again = new TreeMap<>(Comparator.comparing(ResourceKey::value));
            rewrite.forEach((resource, row) -> again.put(resource, row.minToken()));
            try {
                fences.write(again, again.keySet());
                fences.writtenAgain(rewrite);
            } catch (FenceStoreUnavailableException e) {
                // Still in doubt (written again if it was sent): the next sweep tries again.
            }
        }
        if (!plan.withdrawals.isEmpty() || !plan.narrowings.isEmpty()) {
            // A withdrawal not made (its row held by another transaction, most often this instance's
            // own batch writing it again, which leaves it a new generation and a lease) is not tried
            // again: written again as a row in doubt, it would be learned anew under the lease of a
            // write under way. One whose holder rolled back is left to expire.
            rows.tidy(plan.withdrawals, plan.narrowings);
        }
    }
}
