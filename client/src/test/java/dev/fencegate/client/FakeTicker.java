package dev.fencegate.client;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A monotonic clock that moves only when a test says so: a paused process, as the guard sees it. */
final class FakeTicker implements Ticker {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long nanos() {
        return nanos.get();
    }

    void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }
}
