package dev.fencegate.observability;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Refusals of unauthenticated requests, logged at most once a second with a count of those left
 * out since: each is worth an audit line, but a client must not be able to write the log at the
 * rate it can send requests.
 */
public final class RefusalLog {

    private static final long INTERVAL_NANOS = 1_000_000_000L;

    private final Logger log;
    private final LongSupplier nanoClock;
    private final AtomicLong nextAllowed;
    private final AtomicLong leftOut = new AtomicLong();

    public RefusalLog(Logger log) {
        this(log, System::nanoTime);
    }

    RefusalLog(Logger log, LongSupplier nanoClock) {
        this.log = log;
        this.nanoClock = nanoClock;
        this.nextAllowed = new AtomicLong(nanoClock.getAsLong());
    }

    /** Logs {@code message} at WARN unless one was logged less than a second ago; then only counts it. */
    public void warn(String message) {
        long now = nanoClock.getAsLong();
        long allowed = nextAllowed.get();
        if (now - allowed < 0 || !nextAllowed.compareAndSet(allowed, now + INTERVAL_NANOS)) {
            leftOut.incrementAndGet();
            return;
        }
        long skipped = leftOut.getAndSet(0);
        log.warn(skipped == 0 ? message : message + " (and " + skipped + " more refused since the last such line, not logged)");
    }
}
