package dev.fencegate.observability;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Refusals of unauthenticated requests, logged at most once a second with a count of those left
 * out since: each is worth an audit line, but a client must not be able to write the log at the
 * rate it can send requests. A burst that stops is still counted: a second after the first
 * refusal left out, a line reports those left out since, with the last of them.
 */
public final class RefusalLog {

    private static final long INTERVAL_NANOS = 1_000_000_000L;

    private final Logger log;
    private final LongSupplier nanoClock;
    /** Runs a task after a delay in nanoseconds. */
    private final BiConsumer<Long, Runnable> later;
    private final AtomicLong nextAllowed;
    private final AtomicLong leftOut = new AtomicLong();
    private final AtomicBoolean reportDue = new AtomicBoolean();
    private volatile String lastLeftOut;

    public RefusalLog(Logger log) {
        // The report runs on the timer's own thread: logging hands the line to the async appender.
        this(log, System::nanoTime,
                (nanos, task) -> CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS, Runnable::run).execute(task));
    }

    RefusalLog(Logger log, LongSupplier nanoClock, BiConsumer<Long, Runnable> later) {
        this.log = log;
        this.nanoClock = nanoClock;
        this.later = later;
        this.nextAllowed = new AtomicLong(nanoClock.getAsLong());
    }

    /** Logs {@code message} at WARN unless one was logged less than a second ago; then only counts it. */
    public void warn(String message) {
        long now = nanoClock.getAsLong();
        if (!takeTurn(now)) {
            lastLeftOut = message;
            leftOut.incrementAndGet();
            if (reportDue.compareAndSet(false, true)) {
                later.accept(Math.max(0, nextAllowed.get() - now), this::reportLeftOut);
            }
            return;
        }
        long skipped = leftOut.getAndSet(0);
        log.warn(skipped == 0 ? message : message + " (and " + skipped + " more refused since the last such line, not logged)");
    }

    /** The count of a burst that stopped before the next line could carry it. */
    private void reportLeftOut() {
        reportDue.set(false);
        if (leftOut.get() == 0 || !takeTurn(nanoClock.getAsLong())) {
            // Carried by a line already, or one is logged within the second and will carry it;
            // a refusal left out after that schedules its own report.
            if (leftOut.get() != 0 && reportDue.compareAndSet(false, true)) {
                later.accept(Math.max(0, nextAllowed.get() - nanoClock.getAsLong()), this::reportLeftOut);
            }
            return;
        }
        long skipped = leftOut.getAndSet(0);
        if (skipped > 0) {
            log.warn("{} more refused since the last such line, not logged; the last: {}", skipped, lastLeftOut);
        }
    }

    private boolean takeTurn(long now) {
        long allowed = nextAllowed.get();
        return now - allowed >= 0 && nextAllowed.compareAndSet(allowed, now + INTERVAL_NANOS);
    }
}
