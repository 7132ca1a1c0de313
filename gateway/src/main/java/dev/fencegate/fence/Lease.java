package dev.fencegate.fence;

import java.util.function.LongSupplier;

/**
 * This instance's registration row for one resource, as far as it knows it: the lowest token it
 * covers, the generation last written, and a lower bound of its expiry by the local monotonic
 * clock. Fields other than the two volatiles change only under {@link InstanceFences}' lock.
 * Writes admitted under a lease keep it: a renewal that confirms the row before it could have
 * lapsed extends their window, a later one starts a new lease and leaves theirs to close.
 */
final class Lease {

    private final LongSupplier clock;
    long minToken;
    long generation;
    long expiresNanos;
    /** Last moment a write admitted under this lease may go out: the expiry less the store's apply time. */
    private volatile long sendByNanos;
    /** A raise to this token was heard: writes below it are no longer sent. */
    private volatile long revokedBelow;
    /** A raise to an unknown token was heard: windows opened before it are closed. */
    private volatile long revokedThrough;
    private long epoch;
    /**
     * A change made outside the gateways was heard (the fence changed by hand, or this row deleted):
     * the row may be gone, so the lease covers no new claim; the next confirmed write of the row
     * starts a new lease.
     */
    boolean unconfirmed;
    /**
     * Started only by writing a row in doubt again, to learn its generation: it covers no claim
     * ({@link #unconfirmed} too), and a claim's own write of the row recorded after it, but
     * committed before, gives back an older generation than the row has (see
     * {@link InstanceFences}). A change heard from outside ends what it knows.
     */
    boolean learnedOnly;
    /** A write was entered under this lease since its row was last written: a renewal saves the next one a registration. */
    boolean writtenUnder;
    /** A write other than the one that registered it was ever entered under this lease. */
    boolean reused;

    Lease(LongSupplier clock, long minToken, long generation, long expiresNanos, long storeApplyNanos) {
        this.clock = clock;
        this.minToken = minToken;
        this.generation = generation;
        this.expiresNanos = expiresNanos;
        this.sendByNanos = expiresNanos - storeApplyNanos;
    }

    /**
     * The lease a write of its row confirmed at {@code confirmedNanos} leaves: {@code lease} itself
     * (extended by a renewal of the same or a later generation, if any) when the write confirmed it
     * before it could have lapsed, or a new lease, whose writes the old hold does not cover.
     * {@code undone}: a change from outside may have undone the row since the write started;
     * {@code learning}: the row was written again only to learn it (a row in doubt). Either way
     * the new lease covers no claim: the claims write the row again.
     */
    static Lease confirmedBy(Lease lease, RegistrationRows.Written row, long confirmedNanos, long expiresNanos, boolean undone,
                             boolean learning, LongSupplier clock, long storeApplyNanos) {
        if (lease == null || confirmedNanos - lease.expiresNanos >= 0 || lease.unconfirmed || undone) {
            // Recorded after the sweep's later write of the row was (writing again a row in
            // doubt): the row has that write's generation, and at most the lower minimum.
            boolean late = lease != null && lease.learnedOnly && !undone && confirmedNanos - lease.expiresNanos < 0
                    && lease.generation > row.generation();
            Lease fresh = new Lease(clock, late ? Math.min(row.minToken(), lease.minToken) : row.minToken(),
                    late ? lease.generation : row.generation(), expiresNanos, storeApplyNanos);
            // A row written again only to learn it covers no claim: a change by hand to it
            // could have gone unheard (nothing here watched the resource), so a claim writes its own.
            fresh.learnedOnly = !undone && learning;
            fresh.unconfirmed = undone || fresh.learnedOnly;
            return fresh;
        }
        if (row.generation() >= lease.generation) {
            lease.minToken = row.minToken();
            lease.generation = row.generation();
            lease.writtenUnder = false;
            lease.extend(expiresNanos, storeApplyNanos);
        }
        return lease;
    }

    /** A write other than the one that registered this lease was entered under it. */
    void writtenAgain() {
        writtenUnder = true;
        reused = true;
    }

    void extend(long expiresNanos, long storeApplyNanos) {
        if (expiresNanos - this.expiresNanos > 0) {
            this.expiresNanos = expiresNanos;
            this.sendByNanos = expiresNanos - storeApplyNanos;
        }
    }

    long sendByNanos() {
        return sendByNanos;
    }

    void revokeBelow(long token) {
        if (token > revokedBelow) {
            revokedBelow = token;
        }
    }

    /** Every write admitted so far stops going out; writes admitted later are judged afresh. */
    void revokeAll() {
        epoch++;
        revokedThrough = epoch;
    }

    boolean covers(long token) {
        return !unconfirmed && minToken <= token;
    }

    /** How many times every write admitted under this lease was revoked. */
    long epoch() {
        return epoch;
    }

    /** The window of a write at {@code token} admitted under this lease now. */
    SendWindow windowFor(long token) {
        long opened = epoch;
        return () -> clock.getAsLong() - sendByNanos > 0 || token < revokedBelow || opened < revokedThrough;
    }
}
