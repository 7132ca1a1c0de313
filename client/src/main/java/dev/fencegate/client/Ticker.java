package dev.fencegate.client;

import java.time.Instant;

/**
 * The local clocks the guard measures a lease by. Only intervals are read from them, never the
 * time of day. The monotonic clock ({@link #nanos}) is the measure: a wall clock stepped by NTP
 * cannot stretch a lease. The wall clock ({@link #wallNanos}) is a second bound, for what the
 * monotonic clock does not count: Linux stops it while the host is suspended, and a grant runs
 * on meanwhile at the lease store. A wall clock stepped forward only ends a lease early. Tests
 * inject a fake one.
 */
@FunctionalInterface
public interface Ticker {

    /** Monotonic nanoseconds. */
    long nanos();

    /** Nanoseconds of the wall clock; by default the monotonic clock, which adds no bound. */
    default long wallNanos() {
        return nanos();
    }

    static Ticker system() {
        return new Ticker() {
            @Override
            public long nanos() {
                return System.nanoTime();
            }

            @Override
            public long wallNanos() {
                Instant now = Instant.now();
                return now.getEpochSecond() * 1_000_000_000L + now.getNano();
            }
        };
    }
}
