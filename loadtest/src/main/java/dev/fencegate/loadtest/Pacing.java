package dev.fencegate.loadtest;

/**
 * When the next request may go. Fixed-rate pacing releases requests at their intended times;
 * saturation pacing releases one whenever a connection is free. Neither sends at or after
 * {@code endNanos}.
 */
sealed interface Pacing permits FixedRatePacing, SaturationPacing {

    long NEVER = Long.MAX_VALUE;

    boolean hasDue(long nowNanos);

    /** Takes the next due request and returns its intended send time. */
    long take(long nowNanos);

    /** When a request next becomes due, or {@link #NEVER}; saturation never waits. */
    long nextWakeNanos();

    /** Intended times of the requests that were due by {@code nowNanos} but never sent. */
    long[] overdue(long nowNanos);
}
