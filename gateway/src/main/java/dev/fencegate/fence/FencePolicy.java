package dev.fencegate.fence;

import java.util.Optional;

/**
 * The fencing rule, in one place. Total over its inputs and free of I/O, so the same rule can
 * be checked by a table, a property test and against every {@link FenceStore}.
 */
public final class FencePolicy {

    private FencePolicy() {
    }

    /** Judges {@code claim} against the fence currently recorded, if any. */
    public static FenceDecision decide(Optional<Fence> current, FenceClaim claim) {
        if (current.isEmpty()) {
            return new FenceDecision.Admitted(claim, Optional.empty());
        }
        Fence fence = current.get();
        int order = claim.token().compareTo(fence.token());
        if (order < 0) {
            return new FenceDecision.Stale(claim, fence);
        }
        if (order == 0 && heldBySomebodyElse(fence, claim)) {
            return new FenceDecision.Reused(claim, fence);
        }
        if (order == 0 && fence.holder().isPresent() && fence.holder().equals(claim.holder())) {
            return FenceDecision.Admitted.atFenceNamingItsHolder(claim);
        }
        return new FenceDecision.Admitted(claim, Optional.of(fence.token()));
    }

    /** Equal tokens from two named holders mean the issuer granted one number twice. */
    private static boolean heldBySomebodyElse(Fence fence, FenceClaim claim) {
        return fence.holder().isPresent()
                && claim.holder().isPresent()
                && !fence.holder().equals(claim.holder());
    }
}
