package dev.fencegate.client;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A monotonic clock that moves only when a test says so: a paused process, as the guard sees it. */
final class FakeTicker implements Ticker {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicLong wallAhead = new AtomicLong();

    @Override
    public long nanos() {
        return nanos.get();
    }

    @Override
    public long wallNanos() {
        return nanos.get() + wallAhead.get();
    }

    void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }

    /** The host suspended for {@code by}: the wall clock moves on, the monotonic one stands still (as on Linux). */
    void suspend(Duration by) {
        wallAhead.addAndGet(by.toNanos());
    }
}
