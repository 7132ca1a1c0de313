package dev.fencegate.client;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A granted lease kept alive off the work's thread. Renewal runs on a thread of its own, so a
 * long write cannot starve it; a watchdog on a second thread trips the guard when the local
 * deadline nears even while a renewal hangs or keeps failing. Closing stops both and releases the
 * lease.
 */
public final class HeldLease implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HeldLease.class);

    private final LeaseStore store;
    private final LeaseTiming timing;
    private final Ticker ticker;
    private final LeaseGuard guard;
    private final ScheduledExecutorService threads;

    private HeldLease(LeaseStore store, LeaseTiming timing, Ticker ticker, LeaseGuard guard) {
        this.store = store;
        this.timing = timing;
        this.ticker = ticker;
        this.guard = guard;
        this.threads = new ScheduledThreadPoolExecutor(2, runnable -> {
            Thread thread = new Thread(runnable, "fencegate-lease-" + guard.lease().name());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Acquires {@code name} for {@code holder} and starts renewing it; empty while another holds it. */
    public static Optional<HeldLease> acquire(LeaseStore store, String name, String holder, LeaseTiming timing) {
        return acquire(store, name, holder, timing, Ticker.system());
    }

    public static Optional<HeldLease> acquire(LeaseStore store, String name, String holder, LeaseTiming timing, Ticker ticker) {
        Lease.checkHolder(holder); // before any store grants it
        long sentAt = ticker.nanos();
        long sentAtWall = ticker.wallNanos();
        return store.acquire(name, holder, timing.ttl()).map(lease -> {
            HeldLease held = new HeldLease(store, timing, ticker, new LeaseGuard(lease, timing, ticker, sentAt, sentAtWall));
            held.start();
            return held;
        });
    }

    public LeaseGuard guard() {
        return guard;
    }

    public Lease lease() {
        return guard.lease();
    }

    /** The token of this grant, to put on every write. */
    public long token() {
        return guard.lease().token();
    }

    private void start() {
        guard.onLoss(reason -> threads.shutdown());
        long watch = timing.watchdogPeriod().toNanos();
        renewAfter(timing.renewEvery());
        threads.scheduleAtFixedRate(guard::stillHeld, watch, watch, TimeUnit.NANOSECONDS);
    }

    private void renewAfter(Duration delay) {
        try {
            threads.schedule(this::renew, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopped) {
            // Lost or closed: nothing to renew.
        }
    }

    /**
     * A refusal ends the lease. A failure (the lease store unreachable for a moment, as in a
     * restart or a failover) does not: the grant may still stand, so the renewal is tried again
     * within a watchdog period, and the local deadline, which only a renewal that got through moves,
     * gives the lease up if none does in time.
     */
    private void renew() {
        if (!guard.stillHeld()) {
            return;
        }
        long sentAt = ticker.nanos();
        long sentAtWall = ticker.wallNanos();
        boolean renewed;
        try {
            renewed = store.renew(guard.lease(), guard.lease().ttl());
        } catch (RuntimeException e) {
            guard.renewalFailed(e.getMessage());
            Duration retry = retryDelay(timing.watchdogPeriod(), ThreadLocalRandom.current().nextDouble());
            LOG.warn("Renewing lease {} failed; trying again in {} ms, until its local deadline: {}",
                    guard.lease().name(), retry.toMillis(), e.getMessage());
            renewAfter(retry);
            return;
        }
        if (renewed) {
            guard.renewed(sentAt, sentAtWall);
            warnIfSlow(ticker.nanos() - sentAt);
            renewAfter(timing.renewEvery());
        } else {
            guard.trip("the lease store refused the renewal: the lease expired or was granted to another holder");
        }
    }

    /**
     * Between half a watchdog period and a whole one, drawn anew for each try: the workers that a
     * failover cut off all at once come back spread over the period, not as one wave on the new
     * primary every period.
     *
     * @param draw uniform in [0, 1)
     */
    static Duration retryDelay(Duration watchdogPeriod, double draw) {
        long half = watchdogPeriod.toNanos() / 2;
        return Duration.ofNanos(half + (long) (draw * half));
    }

    /**
     * The margin assumes a round trip to the lease store well inside it; one that takes half of it
     * says the assumption is wearing thin, before a lease is lost to it.
     */
    private void warnIfSlow(long tookNanos) {
        if (tookNanos > timing.margin().toNanos() / 2) {
            LOG.warn("Renewing lease {} took {} ms, over half its {} ms margin: raise the ttl and the margin, or find the slowness",
                    guard.lease().name(), tookNanos / 1_000_000, timing.margin().toMillis());
        }
    }

    /**
     * Stops renewing and releases the lease, so the next holder need not wait for it to expire. A
     * guard that tripped by the local clock may still stand for a live grant, so the release is
     * tried either way; the store frees only this holder's current grant.
     */
    @Override
    public void close() {
        guard.released();
        threads.shutdownNow();
        try {
            store.release(guard.lease());
        } catch (RuntimeException e) {
            LOG.warn("Could not release lease {}; it expires by itself: {}", guard.lease().name(), e.getMessage());
        }
    }
}
