package dev.fencegate.fence;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The one owner of this instance's fence state: its writes in flight, its registrations (leases
 * on the fences of resources it writes), the fences it holds, and how recently its listener
 * confirmed it hears raises. Event loops, fence-check threads, the sweep and the listener all come
 * through these methods; the lock is private. Time is read from an injected monotonic clock.
 *
 * <p>A write's window ({@link SendWindow}) follows the lease it was admitted under: a renewal
 * confirmed before the lease could lapse extends it, a raise heard for the resource closes it
 * for lower tokens, and nothing else opens it again.
 */
public final class InstanceFences {

    /** How recently the listener must have confirmed for held fences to be used. */
    public static final Duration LISTENER_FRESH = Duration.ofSeconds(1);
    /**
     * How long a raise that found another instance's row expired, not withdrawn, still treats that
     * instance as a possible holder: long enough for its listener to hear the raise or go stale.
     */
    public static final Duration EXPIRED_HOLDER_GRACE = LISTENER_FRESH.plusMillis(250);
    /**
     * A lease no write but the one that registered it was written under (a new object's) is
     * withdrawn this long after that write, instead of after the idle release: a resource written
     * once is not written again soon, and its row and lease only cost the sweep and the table.
     */
    private static final long ONE_WRITE_RELEASE_NANOS = Duration.ofSeconds(1).toNanos();

    private final Object lock = new Object();
    private final RegistrationRows rows;
    private final LeaseTiming timing;
    private final LongSupplier clock;
    private final InflightTokens inflight = new InflightTokens();
    private final Map<ResourceKey, Lease> leases = new HashMap<>();
    /** Resources another instance is waiting on: released as soon as nothing local needs them. */
    private final Set<ResourceKey> wanted = new HashSet<>();
    private final HeldFences held = new HeldFences();
    private final ExpiredHolderGraces expiredHolderGraces = new ExpiredHolderGraces();
    private final ExpiryTrust expiry;
    /**
     * When a change made outside the gateways was last heard per resource: a row write that started
     * before it may have been undone by it (a row deleted or changed by hand after it was written).
     */
    private final Map<ResourceKey, Long> outsideChanges = new HashMap<>();
    private final RowsInDoubt rowsInDoubt = new RowsInDoubt();
    private final ListenerState listener = new ListenerState();
    private final RegistrationSweep sweep;

    /**
     * What a claim was covered by before its fence was read: its lease, the lease's revocation
     * count then (a revocation heard while the fence is read sends the claim round again), and the
     * hold the read may become.
     */
    record Covered(Lease lease, long epoch, HeldFences.Slot slot) {

        static final Covered NOTHING = new Covered(null, 0, null);
    }

    /** For an instance that does not watch the fence database's clock (a test's). */
    public InstanceFences(RegistrationRows rows, LeaseTiming timing, LongSupplier clock) {
        this(rows, timing, clock, ExpiryTrust.unwatched());
    }

    /** @param expiry whether rows found expired may be taken as ended, after what the database's clock did */
    public InstanceFences(RegistrationRows rows, LeaseTiming timing, LongSupplier clock, ExpiryTrust expiry) {
        this.rows = rows;
        this.timing = timing;
        this.clock = clock;
        this.expiry = expiry;
        this.sweep = new RegistrationSweep(this, rows);
    }

    public long now() {
        return clock.getAsLong();
    }

    public LeaseTiming timing() {
        return timing;
    }

    public void enter(FenceClaim claim) {
        synchronized (lock) {
            inflight.enter(claim);
            Lease lease = leases.get(claim.resource());
            if (lease != null) {
                lease.writtenAgain();
            }
        }
    }

    public void exit(FenceClaim claim) {
        long now = now();
        synchronized (lock) {
            inflight.exit(claim, now);
        }
    }

    /** Whether a write of this instance below {@code token} to {@code resource} may still be on its way to the store. */
    public boolean inFlightBelow(ResourceKey resource, long token) {
        synchronized (lock) {
            OptionalLong lowest = inflight.lowest(resource);
            return lowest.isPresent() && lowest.getAsLong() < token;
        }
    }

    /** Whether no write of this instance may still be on its way to the store. */
    public boolean nothingInFlight() {
        synchronized (lock) {
            return inflight.isEmpty();
        }
    }

    /**
     * Admits {@code claim} and enters it as in flight when it is at a fence held here, under a
     * lease with send time left, with the listener fresh and no lower-token write of its own in
     * flight; empty when the store must be asked. Never blocks.
     */
    Optional<SendWindow> admitHeld(FenceClaim claim) {
        long now = now();
        synchronized (lock) {
            if (!held.admits(claim)) {
                return Optional.empty();
            }
            Lease lease = leases.get(claim.resource());
            if (lease == null || !lease.covers(claim.token().value()) || lease.sendByNanos() - now <= timing.minSendNanos()
                    || !listener.fresh(now) || inflight.hasLowerThan(claim)) {
                return Optional.empty();
            }
            inflight.enter(claim);
            lease.writtenAgain();
            return Optional.of(lease.windowFor(claim.token().value()));
        }
    }

    /**
     * What {@code claims} need registered before their fences are read, so that other instances
     * see this one may send writes to each claim's resource from the claim's token up: rows only
     * where the leases held do not cover it with send time left, or the listener has not confirmed
     * lately that it hears. A claim already covered gets its
     * hold slot now, before any read of its fence. Called after {@link #enter}. Never blocks.
     */
    BatchRegistration register(List<FenceClaim> claims) {
        long now = now();
        Map<ResourceKey, Long> needed = new TreeMap<>(Comparator.comparing(ResourceKey::value));
        List<Covered> before = new ArrayList<>(claims.size());
        boolean rowsUnknown = true;
        long turns;
        synchronized (lock) {
            turns = listener.turns();
            // A lease covers a claim without a row write only while the listener confirms that it
            // hears: one gone silent (no FIN, no RST) is lost only at its socket timeout, and a row
            // deleted by hand meanwhile went unheard; the claim's upsert writes it again.
            boolean hearing = listener.fresh(now);
            for (FenceClaim claim : claims) {
                Lease lease = leases.get(claim.resource());
                if (lease == null || !lease.covers(claim.token().value()) || lease.sendByNanos() - now <= timing.minSendNanos()
                        || !hearing) {
                    needed.merge(claim.resource(), claim.token().value(), Math::min);
                    rowsUnknown &= lease == null;
                }
            }
            for (FenceClaim claim : claims) {
                Lease lease = leases.get(claim.resource());
                boolean covered = !needed.containsKey(claim.resource());
                HeldFences.Slot slot = covered ? held.slot(claim.resource()) : null;
                before.add(covered ? new Covered(lease, lease.epoch(), slot) : null);
            }
        }
        return new BatchRegistration(this, claims, needed, rowsUnknown, before, now, turns);
    }

    /**
     * Records the rows a batch's commit confirmed, then covers each claim registered by it: its
     * lease, and, with the listener fresh, the hold its coming fence read may become. Claims
     * covered before keep what they had. A lease a change made by hand may have undone since its
     * row was written covers nothing: the claim registers again.
     */
    List<Covered> registered(List<FenceClaim> claims, List<RegistrationRows.Written> written, long startedNanos,
                             long turnsAtStart, List<Covered> before) {
        if (!written.isEmpty()) {
            recordWritten(written, startedNanos, turnsAtStart, Set.of());
        }
        List<Covered> covered = new ArrayList<>(claims.size());
        synchronized (lock) {
            boolean holding = listener.fresh(now());
            for (int i = 0; i < claims.size(); i++) {
                if (before.get(i) != null) {
                    covered.add(before.get(i));
                    continue;
                }
                FenceClaim claim = claims.get(i);
                Lease lease = leases.get(claim.resource());
                if (lease == null || lease.unconfirmed) {
                    covered.add(Covered.NOTHING);
                    continue;
                }
                HeldFences.Slot slot = holding ? held.slot(claim.resource()) : null;
                covered.add(new Covered(lease, lease.epoch(), slot));
            }
        }
        return covered;
    }

    /** Writes rows in a commit of their own. Blocks; throws {@link FenceStoreUnavailableException}. */
    List<RegistrationRows.Written> writeRows(Map<ResourceKey, Long> minTokens) {
        try {
            return rows.write(minTokens, timing.rowLength());
        } catch (FenceStoreUnavailableException e) {
            if (e.sent()) {
                rowsInDoubt(minTokens);
            }
            throw e;
        }
    }

    /**
     * A write of these rows failed in a way that may have committed them (the connection was lost
     * as it committed): the next sweep writes them again, so that it learns their generation and
     * can withdraw them. Until then a raise elsewhere may wait on them, as on any row of this instance.
     */
    void rowsInDoubt(Map<ResourceKey, Long> minTokens) {
        long now = now();
        synchronized (lock) {
            rowsInDoubt.add(minTokens, now);
        }
    }

    /** The fence read failed: a raise may have committed, so no hold from it. */
    void readFailed(List<FenceClaim> claims) {
        synchronized (lock) {
            claims.forEach(claim -> held.drop(claim.resource()));
        }
    }

    /**
     * Settles what the store answered for a covered claim, under the lock, so that a claim
     * admitted at a held fence and a raise settled here see each other: either the raise waits
     * for the claim, or the claim sees the raise.
     */
    FenceDecision settle(FenceClaim claim, FenceDecision decision, Covered covered, RememberedFences remembered) {
        synchronized (lock) {
            if (decision instanceof FenceDecision.Admitted admitted) {
                if (inflight.hasLowerThan(claim)) {
                    endHolds(claim.resource(), claim.token().value());
                    return new FenceDecision.Draining(claim, new Fence(claim.resource(), claim.token(), claim.holder()));
                }
                remembered.admitted(claim);
                if (admitted.raised()) {
                    // This instance's own raise (or new fence): its writes below it that have not
                    // gone out stay unsent, and the value it set is held like any fence read with the
                    // registration in place (a raise elsewhere from now on reads that registration
                    // after its own commit and tells this instance), unless the slot went meanwhile.
                    revokeBelow(claim.resource(), claim.token().value());
                }
                if (covered.lease() == null || covered.lease().epoch() != covered.epoch()) {
                    // A change by hand was heard while the fence was read, or right after the row was
                    // written: the row may be gone, and a raise elsewhere may not have waited for this
                    // write. It registers again and is judged again, as a claim behind a lower one is.
                    held.drop(claim.resource());
                    return new FenceDecision.Draining(claim, new Fence(claim.resource(), claim.token(), claim.holder()));
                }
                held.admitted(claim, covered.slot());
                return admitted.within(covered.lease().windowFor(claim.token().value()));
            }
            if (decision instanceof FenceDecision.Draining) {
                // The fence is at the claim's token now: writes here below it are stale and need not go out.
                endHolds(claim.resource(), claim.token().value());
            } else if (decision instanceof FenceDecision.Stale stale) {
                endHoldsBelow(claim.resource(), stale.current().token().value());
                if (!stale.heardOnly()) {
                    // The next stale token refused from memory names this fence, not a lower one admitted
                    // here. A raise only heard of is known already, and must not become one confirmed:
                    // the regression guard would write it to the store for the next claim below it.
                    remembered.readAt(claim.resource(), stale.current().token().value());
                }
            } else if (decision instanceof FenceDecision.Reused reused) {
                endHoldsBelow(claim.resource(), reused.current().token().value());
                remembered.readAt(claim.resource(), reused.current().token().value());
            } else if (decision instanceof FenceDecision.Unavailable) {
                held.drop(claim.resource());
            }
            return decision;
        }
    }

    /**
     * A raise of {@code resource} to {@code token} made here other than by a write (the admin
     * port, the regression guard; a write's raise is settled with its batch, see {@link #settle}):
     * no fence of it is held any longer, and writes below {@code token} not yet fully sent are not sent.
     */
    public void raised(ResourceKey resource, long token) {
        synchronized (lock) {
            endHolds(resource, token);
        }
    }

    /** A refusal read the fence at {@code read}: see {@link HeldFences#dropBelow}. */
    private void endHoldsBelow(ResourceKey resource, long read) {
        held.dropBelow(resource, read);
        revokeBelow(resource, read);
    }

    private void endHolds(ResourceKey resource, long token) {
        held.drop(resource);
        revokeBelow(resource, token);
    }

    private void revokeBelow(ResourceKey resource, long token) {
        Lease lease = leases.get(resource);
        if (lease != null) {
            lease.revokeBelow(token);
        }
    }

    /**
     * A raise to {@code token} found another instance's registration expired, not withdrawn: that
     * instance may still hold the fence without knowing (see {@link ExpiredHolderGraces#mayStillHold}),
     * and the row may still be live: until a reading of the database's clock that began after the
     * row was found expired has been compared, and for a row length after that clock was seen to
     * step forward (see {@link ExpiryTrust}).
     */
    boolean expiredHolderMayStillHold(ResourceKey resource, long token) {
        long now = now();
        synchronized (lock) {
            return expiredHolderGraces.mayStillHold(resource, token, now)
                    || !expiry.readSince(expiredHolderGraces.startedNanos(resource)) || expiry.distrusted();
        }
    }

    /**
     * The expired rows of {@code resource} were removed, by this instance or another (each removal
     * is notified to every instance): a row found expired later gets a grace of its own.
     */
    public void expiredHolderGraceServed(ResourceKey resource) {
        synchronized (lock) {
            expiredHolderGraces.served(resource);
        }
    }

    /**
     * The store judged these resources and found no expired row of another instance: a grace begun
     * for one of them is over, and a row found expired later gets a grace of its own.
     */
    void noExpiredHolders(List<ResourceKey> resources) {
        synchronized (lock) {
            expiredHolderGraces.servedAll(resources);
        }
    }

    /**
     * The listener heard that an instance raised the fence of {@code resource} to {@code token},
     * or waits to: see {@link #raised}. With no token (a change made outside the gateways: a fence
     * changed, or a registration deleted, by hand), every write admitted here so far stops going
     * out, and the lease covers no new claim until its row is written again: it may be gone, and a
     * raise finds only the instances whose rows it can see. This instance's row is withdrawn at the
     * next sweep if nothing here is in flight.
     */
    public void heard(ResourceKey resource, OptionalLong token) {
        long now = now();
        synchronized (lock) {
            if (token.isPresent()) {
                endHolds(resource, token.getAsLong());
            } else {
                // Kept only where a row of this instance may be under way or standing: a bulk change
                // by hand announces every row it touches, to every instance.
                if (leases.containsKey(resource) || inflight.lowest(resource).isPresent()) {
                    outsideChanges.put(resource, now);
                }
                held.drop(resource);
                Lease lease = leases.get(resource);
                if (lease != null) {
                    lease.revokeAll();
                    lease.unconfirmed = true;
                    lease.learnedOnly = false;
                }
            }
            if (leases.containsKey(resource)) {
                wanted.add(resource);
            }
        }
    }

    /**
     * The listener's connection has run LISTEN: a change made from now on is announced to it. One
     * made before, while nobody here listened, went unheard: a row written meanwhile may have been
     * deleted by hand, so a lease confirmed since the connection was lost covers nothing more, the
     * writes admitted under it stop going out, and every claim writes its row again, as after the
     * loss itself; a row write under way now covers nothing either ({@link ListenerState#turns}).
     */
    public void listenerListening() {
        synchronized (lock) {
            listener.listening();
            held.dropAll();
            leases.values().forEach(lease -> {
                if (!lease.unconfirmed) {
                    lease.revokeAll();
                }
                lease.unconfirmed = true;
                lease.learnedOnly = false;
            });
        }
    }

    /** Every notice sent before {@code sinceNanos} (this owner's clock) has been delivered. */
    public void listenerConfirmed(long sinceNanos) {
        synchronized (lock) {
            listener.confirmed(sinceNanos);
        }
    }

    /**
     * The listener's connection is gone: raises may go unheard until it is back, and the
     * database may have changed under it (a restart, a failover, a row deleted by hand that
     * nobody here heard of), so no lease covers a new claim until its row is written again, and
     * when a listening connection was lost, every write admitted here so far stops going out, and
     * a row write under way then covers nothing: a raise finds only the instances whose rows it
     * can see. Called again for every attempt to listen that fails, which changes nothing more:
     * the leases confirmed meanwhile are left for {@link #listenerListening} to end.
     */
    public void listenerLost() {
        synchronized (lock) {
            boolean wasListening = listener.lost();
            held.dropAll();
            if (!wasListening) {
                // A failed attempt to listen: leases confirmed since the loss stay as they are (none
                // covers a claim without its row until the listener confirms), so that the listen
                // that follows finds them and stops the writes admitted under them.
                return;
            }
            leases.values().forEach(lease -> {
                lease.revokeAll();
                lease.unconfirmed = true;
                lease.learnedOnly = false;
            });
        }
    }

    /** How many times a confirmed listener was lost; each time held fences stopped until it confirmed again. */
    public long listenerLosses() {
        synchronized (lock) {
            return listener.losses();
        }
    }

    /** Whether the listener has confirmed recently enough that held fences may be used. */
    public boolean hearsRaises() {
        long now = now();
        synchronized (lock) {
            return listener.fresh(now);
        }
    }

    /**
     * Writes rows and records what they confirm. A renewal confirmed before the lease it renews
     * could have lapsed extends it; otherwise the row may have been gone for a while, another
     * instance may have raised meanwhile, so it starts a new lease and ends the hold. A row a change
     * heard from outside since the write started may have undone starts a lease that covers
     * nothing: the claims write the row again; so does one under way when the listener's
     * connection was lost ({@code turnsAtStart}: such a change went unheard), and one written only
     * to learn it, a row in doubt ({@code coverNothing}).
     */
    void write(Map<ResourceKey, Long> minTokens, Set<ResourceKey> coverNothing) {
        long started = now();
        long turns;
        synchronized (lock) {
            turns = listener.turns();
        }
        recordWritten(writeRows(minTokens), started, turns, coverNothing);
    }

    private void recordWritten(List<RegistrationRows.Written> written, long started, long turnsAtStart,
                               Set<ResourceKey> coverNothing) {
        long confirmed = now();
        long expires = started + timing.rowNanos();
        synchronized (lock) {
            boolean unheard = listener.turns() != turnsAtStart;
            for (RegistrationRows.Written row : written) {
                Lease lease = leases.get(row.resource());
                Long changedOutside = outsideChanges.get(row.resource());
                boolean undone = unheard || changedOutside != null && changedOutside - started > 0;
                Lease kept = Lease.confirmedBy(lease, row, confirmed, expires, undone, coverNothing.contains(row.resource()),
                        clock, timing.storeApplyNanos());
                if (kept != lease) {
                    held.drop(row.resource());
                    leases.put(row.resource(), kept);
                }
            }
        }
    }

    /** How many entries this instance keeps for resources, all kinds together: what the sweeps keep bounded. */
    int resourcesKept() {
        synchronized (lock) {
            return inflight.resources() + leases.size() + held.size() + wanted.size() + expiredHolderGraces.size()
                    + outsideChanges.size() + rowsInDoubt.size();
        }
    }

    /** The full sweep: withdraws idle and expired rows, narrows, renews rows written under since they were last written. */
    public void reconcile() {
        sweep.full();
    }

    /** Only the rows another instance waits on: cheap enough to run often. */
    public void reconcileWanted() {
        sweep.wanted();
    }

    /**
     * Starts a full sweep: forgets what has run out and returns every resource with a lease;
     * {@code doubtful} gets the rows in doubt the sweep writes again.
     */
    List<ResourceKey> startFullSweep(Map<ResourceKey, RowsInDoubt.Row> doubtful) {
        long now = now();
        synchronized (lock) {
            List<ResourceKey> all = List.copyOf(leases.keySet());
            // A row in doubt longer than a row lasts has expired; one written again is known.
            doubtful.putAll(rowsInDoubt.toWriteAgain(now, timing.rowNanos()));
            // When a resource went idle matters only to a lease on it: a claim that never got one
            // (its registration failed) leaves nothing behind.
            inflight.forgetIdleExcept(leases.keySet());
            expiredHolderGraces.forgetOld(now);
            // A row write that started longer ago than a row lasts confirms a lease already past its send time.
            long remembered = Math.max(ExpiredHolderGraces.MEMORY_NANOS, timing.rowNanos());
            outsideChanges.values().removeIf(heard -> now - heard > remembered);
            return all;
        }
    }

    /** The resources another instance waits on; empty when there are none. */
    List<ResourceKey> wantedElsewhere() {
        synchronized (lock) {
            return wanted.isEmpty() ? List.of() : List.copyOf(wanted);
        }
    }

    /** Decides, under the lock, what the sweep does with this instance's row of {@code resource}. */
    void sweep(ResourceKey resource, boolean renew, long now, RegistrationSweep.Plan plan) {
        synchronized (lock) {
            boolean wantedElsewhere = wanted.remove(resource);
            Lease lease = leases.get(resource);
            if (lease == null) {
                return;
            }
            OptionalLong lowest = inflight.lowest(resource);
            long release = lease.reused ? timing.idleReleaseNanos() : Math.min(ONE_WRITE_RELEASE_NANOS, timing.idleReleaseNanos());
            boolean idle = inflight.idleFor(resource, release, now);
            if (lowest.isEmpty() && (wantedElsewhere || idle || now - lease.expiresNanos > 0)) {
                leases.remove(resource);
                held.drop(resource);
                inflight.forget(resource);
                plan.withdrawals.add(new RegistrationRows.Change(resource, lease.minToken, lease.generation));
                return;
            }
            if (lowest.isPresent() && lowest.getAsLong() > lease.minToken) {
                // Covers from now on see the higher minimum and write their own row.
                lease.minToken = lowest.getAsLong();
                plan.narrowings.add(new RegistrationRows.Change(resource, lease.minToken, lease.generation));
            }
            // A row write is worth it only for a lease written under since its row was last written
            // (or with a write still in flight): one written once, as a new object is, by the very
            // write that registered it, runs out instead, and a later write registers again.
            if (renew && lease.sendByNanos() - now < timing.renewBelowNanos() && (lowest.isPresent() || lease.writtenUnder)) {
                plan.renewals.put(resource, lease.minToken);
            }
        }
    }

    /** These rows in doubt were written again (see {@link RowsInDoubt#writtenAgain}). */
    void writtenAgain(Map<ResourceKey, RowsInDoubt.Row> rewritten) {
        synchronized (lock) {
            rowsInDoubt.writtenAgain(rewritten);
        }
    }

    /**
     * Withdraws every row of this instance on a clean stop, so other instances' raises do not wait
     * for them to expire; only when nothing of this instance may still land at the store.
     */
    public void withdrawAllIfIdle() {
        if (!nothingInFlight()) {
            return;
        }
        rows.withdrawAll();
        synchronized (lock) {
            leases.clear();
            held.dropAll();
        }
    }
}
