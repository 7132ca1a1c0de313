package dev.fencegate.client;

import java.time.Duration;

/**
 * How long a grant runs, how often it is renewed, and the margin by which the guard gives up
 * before the local clock says the grant ends.
 *
 * <p>The local deadline is counted from the moment the request left this process, which is before
 * the store started its grant, so delay on the way there only shortens it. The margin covers what
 * remains: the two clocks running at slightly different rates over one {@code ttl}, the watchdog
 * firing late on a loaded machine, and a write that passed its check and is still on its way. A
 * pause longer than the margin is exactly what the fencing token is for.
 */
public record LeaseTiming(Duration ttl, Duration renewEvery, Duration margin) {

    public LeaseTiming {
        positive("ttl", ttl);
        positive("renewEvery", renewEvery);
        positive("margin", margin);
        if (margin.compareTo(ttl) >= 0) {
            throw new IllegalArgumentException("margin: " + margin + " (expected less than the ttl " + ttl + ")");
        }
        if (renewEvery.compareTo(ttl.minus(margin)) >= 0) {
            throw new IllegalArgumentException("renewEvery: " + renewEvery
                    + " (expected less than the ttl minus the margin, " + ttl.minus(margin) + ")");
        }
    }

    /**
     * Renewal every third of the ttl and a margin of a fifth: renewals may fail or be slow until four
     * fifths of the ttl after the last one that got through before the guard trips.
     */
    public static LeaseTiming of(Duration ttl) {
        return new LeaseTiming(ttl, ttl.dividedBy(3), ttl.dividedBy(5));
    }

    /** How often the watchdog compares the clock with the deadline: well inside the margin. */
    Duration watchdogPeriod() {
        Duration quarter = margin.dividedBy(4);
        return quarter.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10) : quarter;
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + ": " + value + " (expected a positive duration)");
        }
    }
}
