package dev.fencegate.loadtest;

/** How writes pick their resource and their {@code Fencing-Token}. */
public enum TokenPattern {
    /** Each resource keeps a current token and every write carries it. */
    STEADY,
    /** A share of writes raise their resource's token by one first. */
    BUMPS,
    /** A share of writes carry a token one below the current one and should be refused. */
    STALE,
    /** Every connection writes the same resource with its current token. */
    HOT,
    /** Every write goes to a path never written before, with the run's token base: a new fence row each. */
    NEW_OBJECTS,
    /** Every write raises its resource's token by one: each one changes a fence. */
    RAISES,
    /** The fleet's mix: mostly the current token, some new objects, a few raises (see {@link RequestPlanner}). */
    MIXED,
    /**
     * Every write goes to a path never written before under one of the resources, its job, with
     * the job's current token: a gateway with a job scope fences it as a write to the job.
     */
    JOB_OBJECTS;

    /** Patterns that raise tokens need one writer per resource, or a raise would turn a write in flight stale. */
    boolean raisesTokens() {
        return this == BUMPS || this == RAISES || this == MIXED;
    }
}
