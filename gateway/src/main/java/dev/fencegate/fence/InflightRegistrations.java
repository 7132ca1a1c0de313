package dev.fencegate.fence;

/**
 * Makes this instance's in-flight writes visible to other instances sharing the fence store, so
 * that none of them forwards a higher-token write while a lower one from here may still land.
 */
public interface InflightRegistrations {

    /** Nothing to share: a single instance, or a store that is not shared. */
    InflightRegistrations NONE = new InflightRegistrations() {
        @Override
        public void cover(FenceClaim claim) {
        }

        @Override
        public void reconcile() {
        }
    };

    /**
     * Ensures, before returning, that other instances see this one may forward writes to the
     * claim's resource with tokens from the claim's up. Called after {@link LocalInflight#enter}
     * and before the fence is read. Blocks; throws {@link FenceStoreUnavailableException}.
     */
    void cover(FenceClaim claim);

    /** Withdraws or narrows registrations the local in-flight writes no longer need. Periodic. */
    void reconcile();
}
