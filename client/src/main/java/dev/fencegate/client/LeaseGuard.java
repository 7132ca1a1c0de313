package dev.fencegate.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the work holds while it works under a lease: a cheap {@link #stillHeld()} by the local
 * clocks, and a trip that fires once, when a renewal is refused, the lease runs out, or a write is
 * fenced out. A tripped guard never becomes held again: the work stops rather than
 * continue optimistically. The renewal thread, the watchdog and the work share this state, so
 * it is kept here, behind one private lock.
 */
public final class LeaseGuard {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseGuard.class);

    private final Lease lease;
    private final Ticker ticker;
    private final long ttlNanos;
    private final long marginNanos;
    private final Object lock = new Object();
    private final List<Consumer<String>> onLoss = new ArrayList<>();
    private volatile long deadlineNanos;
    /** The same deadline by {@link Ticker#wallNanos}; guarded by {@link #lock} for writes. */
    private volatile long wallDeadlineNanos;
    private volatile String lostBecause;
    /** The holder is done with the lease; guarded by {@link #lock}. */
    private boolean released;
    /** Why the last renewal failed, until one gets through. */
    private volatile String renewalFailure;

    /**
     * A guard for a grant whose request left this process at {@code sentAtNanos} by {@code ticker}'s
     * monotonic clock; its wall clock is taken to have read the same moment that much earlier than
     * now, which a suspend since would hide: {@link #LeaseGuard(Lease, LeaseTiming, Ticker, long, long)}
     * takes the two readings made as the request left.
     */
    public LeaseGuard(Lease lease, LeaseTiming timing, Ticker ticker, long sentAtNanos) {
        this(lease, timing, ticker, sentAtNanos, ticker.wallNanos() - (ticker.nanos() - sentAtNanos));
    }

    /** A guard for a grant whose request left this process when {@code ticker}'s clocks read {@code sentAtNanos} and {@code sentAtWallNanos}. */
    public LeaseGuard(Lease lease, LeaseTiming timing, Ticker ticker, long sentAtNanos, long sentAtWallNanos) {
        this.lease = lease;
        this.ticker = ticker;
        this.ttlNanos = lease.ttl().toNanos();
        this.marginNanos = timing.margin().toNanos();
        this.deadlineNanos = sentAtNanos + ttlNanos;
        this.wallDeadlineNanos = sentAtWallNanos + ttlNanos;
    }

    public Lease lease() {
        return lease;
    }

    /** How long before the deadline the guard gives up the lease. */
    public Duration margin() {
        return Duration.ofNanos(marginNanos);
    }

    /** True while not tripped and the local clock is more than the margin before the deadline. */
    public boolean stillHeld() {
        if (lostBecause != null) {
            return false;
        }
        long left = deadlineNanos - marginNanos - ticker.nanos();
        if (left <= 0) {
            String failure = renewalFailure;
            trip("the lease ran out by the local clock (no renewal reached the lease store in time"
                    + (failure == null ? ")" : "; the last renewal failed: " + failure + ")"));
            return false;
        }
        if (wallDeadlineNanos - marginNanos - ticker.wallNanos() <= 0) {
            String failure = renewalFailure;
            trip("the lease ran out by the wall clock (no renewal reached the lease store in time"
                    + (failure == null ? "" : "; the last renewal failed: " + failure) + "), with " + left / 1_000_000
                    + " ms left by the monotonic clock: the host may have been suspended, or its clock stepped forward");
            return false;
        }
        return true;
    }

    /** Throws {@link LeaseLostException} unless {@link #stillHeld()}; call it before each step of work. */
    public void checkHeld() {
        if (!stillHeld()) {
            throw new LeaseLostException(lease, lostBecause);
        }
    }

    /** Why the guard tripped, once it has. */
    public Optional<String> lostBecause() {
        return Optional.ofNullable(lostBecause);
    }

    /** Records that a renewal sent when the clocks read {@code sentAtNanos} and {@code sentAtWallNanos} succeeded; ignored once tripped. */
    void renewed(long sentAtNanos, long sentAtWallNanos) {
        synchronized (lock) {
            if (lostBecause == null) {
                deadlineNanos = Math.max(deadlineNanos, sentAtNanos + ttlNanos);
                // Not the later of the two: a wall clock stepped back would keep the deadline of its old
                // reading, and leave a suspend unseen for as long as the step. Renewals end one at a time.
                wallDeadlineNanos = sentAtWallNanos + ttlNanos;
                renewalFailure = null;
            }
        }
    }

    /** Records why a renewal failed (it was not refused): said if the lease runs out before one gets through. */
    void renewalFailed(String why) {
        renewalFailure = why;
    }

    /** Marks the lease lost for good and tells every listener, once; later trips keep the first reason. */
    public void trip(String reason) {
        List<Consumer<String>> listeners;
        synchronized (lock) {
            if (lostBecause != null) {
                return;
            }
            lostBecause = reason;
            listeners = List.copyOf(onLoss);
            onLoss.clear();
        }
        LOG.warn("Lease {} (token {}, holder {}) lost, stopping its work: {}", lease.name(), lease.token(), lease.holder(), reason);
        for (Consumer<String> listener : listeners) {
            try {
                listener.accept(reason);
            } catch (RuntimeException e) {
                // One failing listener must not keep the others (an interrupt, the renewal's stop) from running.
                LOG.error("A listener of lease {} failed on its loss", lease.name(), e);
            }
        }
    }

    /** Ends the guard without telling the listeners: the holder itself is done with the lease. */
    void released() {
        synchronized (lock) {
            released = true;
            if (lostBecause == null) {
                lostBecause = "released by its holder";
            }
            onLoss.clear();
        }
    }

    /** Calls {@code listener} with the reason when the guard trips (at once if it already has). */
    public void onLoss(Consumer<String> listener) {
        String reason;
        synchronized (lock) {
            reason = lostBecause;
            if (reason == null) {
                onLoss.add(listener);
                return;
            }
        }
        listener.accept(reason);
    }

    /**
     * Interrupts {@code worker} when the guard trips, so blocking work is cancelled, not finished.
     * A trip on the worker's own thread (its write was refused) needs no interrupt: the worker gets
     * the exception, and a stray interrupt flag would break its next blocking call; nor does one
     * whose listeners run after the holder released the lease. An interrupt sent is left for the
     * worker: one that goes on to other work after a lost lease clears it ({@link Thread#interrupted()}),
     * as only it can tell the guard's interrupt from another sender's (a shutdown).
     */
    public void interruptOnLoss(Thread worker) {
        onLoss(reason -> {
            // A trip whose listeners run while the holder releases the lease (its work done) must not
            // interrupt what the thread does next: the check and the interrupt share the lock.
            synchronized (lock) {
                if (!released && Thread.currentThread() != worker) {
                    worker.interrupt();
                }
            }
        });
    }
}
