package dev.fencegate.fence;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Whether a registration found expired may be taken as ended. Rows expire by the fence database's
 * clock. When that clock steps forward, every row looks that much closer to its end than it is, and
 * a row found expired may still cover a write on its way to the store, should its instance's renewal
 * come late. So for a row length after this instance saw such a step, no row is taken as ended for
 * having expired: raises and naming changes wait for it as for a live one. Any row written before
 * the step has ended by then, by every clock. A step is seen by the first reading of that clock after
 * it, so a row found expired is taken as ended only once a reading that began after it was found has
 * been compared. Told by the checks that watch the database's clock; thread-safe.
 */
public final class ExpiryTrust {

    private final long rowNanos;
    private final LongSupplier clock;
    private final boolean watched;
    private volatile long steppedAtNanos;
    private volatile boolean stepped;
    private volatile long lastReadingBeganNanos;
    private volatile boolean read;

    /** @param rowLength the longest a registration lives; @param clock monotonic nanoseconds */
    public ExpiryTrust(Duration rowLength, LongSupplier clock) {
        this(rowLength, clock, true);
    }

    private ExpiryTrust(Duration rowLength, LongSupplier clock, boolean watched) {
        this.rowNanos = rowLength.toNanos();
        this.clock = clock;
        this.watched = watched;
    }

    /** For an instance that does not watch the database's clock (a test's): a row is taken as ended when it expires. */
    public static ExpiryTrust unwatched() {
        return new ExpiryTrust(Duration.ZERO, System::nanoTime, false);
    }

    /** The database's clock was just seen to step forward (or this host to have been suspended). */
    public void steppedForward() {
        steppedAtNanos = clock.getAsLong();
        stepped = true;
    }

    /** A reading of the database's clock that began at {@code beganNanos} was compared with the one before it. */
    public void clockRead(long beganNanos) {
        lastReadingBeganNanos = beganNanos;
        read = true;
    }

    /**
     * Whether a reading that began at or after {@code nanos} has been compared: a step before
     * {@code nanos} has been seen by now, if this instance could see it. Ask before {@link #distrusted}.
     */
    public boolean readSince(long nanos) {
        return !watched || read && lastReadingBeganNanos - nanos >= 0;
    }

    /** Whether a row found expired now may still cover a write under way. */
    public boolean distrusted() {
        return stepped && clock.getAsLong() - steppedAtNanos < rowNanos;
    }
}
