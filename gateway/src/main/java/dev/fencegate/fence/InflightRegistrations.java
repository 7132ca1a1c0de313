package dev.fencegate.fence;

import java.util.List;

/**
 * Makes this instance's in-flight writes visible to other instances sharing the fence store, so
 * that none of them forwards a higher-token write while a lower one from here may still land.
 *
 * <p>A live registration is also a lease on the fence: no instance admits a token above the
 * registration's minimum until it is withdrawn or expires. So a fence read after the
 * registration was in place can be held, and claims at that fence admitted without reading the
 * store again, until this instance hears of a raise or lets the registration go. The methods
 * about held fences are called with {@link LocalInflight#lock()} held.
 */
public interface InflightRegistrations {

    /** Nothing to share: a single instance, or a store that is not shared. Holds no fence. */
    InflightRegistrations NONE = new InflightRegistrations() {
        @Override
        public void cover(FenceClaim claim) {
        }

        @Override
        public void reconcile() {
        }
    };

    /** A fence read under way for a covered claim: what it admits may be held, unless a raise was heard meanwhile. */
    interface Hold {
        Hold NONE = claim -> {
        };

        /** The store admitted {@code claim} without raising the fence. */
        void admitted(FenceClaim claim);
    }

    /**
     * Ensures, before returning, that other instances see this one may forward writes to the
     * claim's resource with tokens from the claim's up. Called after {@link LocalInflight#enter}
     * and before the fence is read. Blocks; throws {@link FenceStoreUnavailableException}.
     */
    void cover(FenceClaim claim);

    /** {@link #cover} for several claims at once; a store may write them together. */
    default void coverAll(List<FenceClaim> claims) {
        claims.forEach(this::cover);
    }

    /** Withdraws or narrows registrations the local in-flight writes no longer need. Periodic. */
    void reconcile();

    /** After {@link #cover}, before the fence is read: the hold the read's answer may become. */
    default Hold startHolding(FenceClaim claim) {
        return Hold.NONE;
    }

    /**
     * Whether a held fence admits {@code claim}, under a registration that covers its token for
     * as long as the write may take.
     */
    default boolean heldFenceAdmits(FenceClaim claim) {
        return false;
    }

    /** Stops holding the fence of {@code resource}: it may have been raised. */
    default void dropHeld(ResourceKey resource) {
    }
}
