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
    HOT
}
