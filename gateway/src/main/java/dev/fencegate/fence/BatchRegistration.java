package dev.fencegate.fence;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The registrations a batch of claims needs before any of their fences may be read: rows from
 * each claim's token up, where the leases this instance holds do not cover it. A store that can
 * write them in the same commit as the batch's raises does so ({@link FenceStore#admitAll(List,
 * BatchRegistration)}); it must call {@link #written} once that commit is confirmed and before it
 * reads any fence of a claim registered here, or {@link #mayHaveCommitted} when that commit's
 * outcome is unknown. Made by {@link InstanceFences#register}.
 */
public final class BatchRegistration {

    private final InstanceFences fences;
    private final List<FenceClaim> claims;
    private final Map<ResourceKey, Long> minTokens;
    private final boolean rowsUnknown;
    private final List<InstanceFences.Covered> coveredBefore;
    private final long startedNanos;
    private final long listenerTurnsAtStart;
    private List<InstanceFences.Covered> covered;

    BatchRegistration(InstanceFences fences, List<FenceClaim> claims, Map<ResourceKey, Long> minTokens, boolean rowsUnknown,
                      List<InstanceFences.Covered> coveredBefore, long startedNanos, long listenerTurnsAtStart) {
        this.fences = fences;
        this.claims = claims;
        this.minTokens = minTokens;
        this.rowsUnknown = rowsUnknown;
        this.coveredBefore = coveredBefore;
        this.startedNanos = startedNanos;
        this.listenerTurnsAtStart = listenerTurnsAtStart;
    }

    /** The lowest token to register per resource, in resource order; empty when every claim is covered. */
    public Map<ResourceKey, Long> minTokens() {
        return minTokens;
    }

    /**
     * Whether this instance knows of no row of its own for any resource to register (it holds no
     * lease on them, not even one it stopped trusting), so a store may insert the rows rather than
     * upsert them. A hint, not a promise: a row whose withdrawal has not committed, or failed, may
     * still be there, and the store must then write the rows as it would otherwise.
     */
    public boolean rowsUnknown() {
        return rowsUnknown;
    }

    /** How long from the commit's start the rows must last. */
    public Duration length() {
        return fences.timing().rowLength();
    }

    /** Whether {@code claim}'s fence may be read only after this registration's commit. */
    public boolean registers(FenceClaim claim) {
        return minTokens.containsKey(claim.resource());
    }

    /** The rows are committed and visible to every instance. Call before reading their claims' fences. */
    public void written(List<RegistrationRows.Written> rows) {
        covered = fences.registered(claims, rows, startedNanos, listenerTurnsAtStart, coveredBefore);
    }

    /**
     * The statement carrying the rows failed, and may have committed them all the same (its
     * connection was lost as it committed): this instance writes them again later, to learn them
     * and withdraw them, rather than leave them for other instances' raises to wait on until they expire.
     */
    public void mayHaveCommitted() {
        if (!minTokens.isEmpty()) {
            fences.rowsInDoubt(minTokens);
        }
    }

    /** For a store that cannot join the rows to its own commit: writes them in one of their own first. */
    public void writeAlone() {
        written(minTokens.isEmpty() ? List.of() : fences.writeRows(minTokens));
    }

    List<InstanceFences.Covered> covered() {
        if (covered == null) {
            throw new IllegalStateException("the fence store judged a batch without confirming its registrations");
        }
        return covered;
    }
}
