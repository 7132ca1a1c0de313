package dev.fencegate.fence;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Whether a registration found expired may be taken as ended. Rows expire by the fence database's
 * clock. When that clock steps forward, every row looks that much closer to its end than it is, and
 * a row found expired may still cover a write on its way to the store, should its instance's renewal
 * come late. So for a row length after this instance saw such a step, no row is taken as ended for
 * having expired: raises and naming changes wait for it as for a live one. Any row written before
 * the step has ended by then, by every clock. Told by the checks that watch the database's clock;
 * thread-safe.
 */
public final class ExpiryTrust {

    private final long rowNanos;
    private final LongSupplier clock;
    private volatile long steppedAtNanos;
    private volatile boolean stepped;

    /** @param rowLength the longest a registration lives; @param clock monotonic nanoseconds */
    public ExpiryTrust(Duration rowLength, LongSupplier clock) {
        this.rowNanos = rowLength.toNanos();
        this.clock = clock;
    }

    /** The database's clock was just seen to step forward (or this host to have been suspended). */
    public void steppedForward() {
        steppedAtNanos = clock.getAsLong();
        stepped = true;
    }

    /** Whether a row found expired now may still cover a write under way. */
    public boolean distrusted() {
        return stepped && clock.getAsLong() - steppedAtNanos < rowNanos;
    }
}
