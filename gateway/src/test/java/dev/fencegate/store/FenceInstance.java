package dev.fencegate.store;

import static org.awaitility.Awaitility.await;

import dev.fencegate.fence.BatchRegistration;
import dev.fencegate.fence.ExpiryTrust;
import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceAdmission;
import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.LeaseTiming;
import dev.fencegate.fence.RegistrationRows;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One gateway's fence side against a real PostgreSQL, wired as the gateway wires it, on a clock
 * the test moves: its store trips are counted, and its registration writes can be made to fail.
 */
final class FenceInstance implements AutoCloseable {

    /** A monotonic clock that moves only when a test says so; shared by the instances of a test. */
    static final class FakeClock {
        private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

        long now() {
            return nanos.get();
        }

        void advance(Duration by) {
            nanos.addAndGet(by.toNanos());
        }
    }

    final UUID id = UUID.randomUUID();
    final AtomicInteger trips = new AtomicInteger();
    final AtomicBoolean registrationsFail = new AtomicBoolean();
    /** Run once, on the fence-check thread, after the store answered a batch and before the answer is settled. */
    final AtomicReference<Runnable> afterStoreAnswered = new AtomicReference<>();
    /** Run once, on the writing thread, after a row write of its own (a sweep's) committed and before it is recorded. */
    final AtomicReference<Runnable> afterRowsWritten = new AtomicReference<>();
    /** Run once, on the sweeping thread, after a sweep planned its withdrawals and before its tidy statement runs. */
    final AtomicReference<Runnable> beforeTidy = new AtomicReference<>();
    final InstanceFences fences;
    /** Told by the test, as the checks would tell it, that the database's clock stepped forward. */
    final ExpiryTrust expiry;
    /** Whether each write is preceded by a reading of the database's clock, as the checks make one each second. */
    final AtomicBoolean clockReadings = new AtomicBoolean(true);
    private final FakeClock clock;
    final FenceAdmission admission;
    final InflightListener listener;
    /** The store under the trip counter, for what it counts itself. */
    final PostgresFenceStore postgres;
    /** Read once at the start; a test that renames synchronous standbys reads it again ({@link #checkDurability}). */
    final DurabilityGuard guard;
    private final FenceChecker checker;
    private final javax.sql.DataSource sessions;

    FenceInstance(FenceDatabase database, FakeClock clock, LeaseTiming timing, int remembered, boolean listening) {
        this(database, clock, timing, remembered, listening, database.dataSource());
    }

    /** With the listener's connections from {@code listenerSource}. */
    FenceInstance(FenceDatabase database, FakeClock clock, LeaseTiming timing, int remembered, boolean listening,
                  javax.sql.DataSource listenerSource) {
        sessions = database.dataSource();
        PostgresInflightRegistrations postgresRows = new PostgresInflightRegistrations(database.dataSource(), id);
        RegistrationRows rows = new RegistrationRows() {
            @Override
            public List<Written> write(Map<ResourceKey, Long> minTokens, Duration length) {
                if (registrationsFail.get()) {
                    throw new FenceStoreUnavailableException("registrations cut off by the test");
                }
                List<Written> written = postgresRows.write(minTokens, length);
                Runnable pause = afterRowsWritten.getAndSet(null);
                if (pause != null) {
                    pause.run();
                }
                return written;
            }

            @Override
            public void tidy(List<Change> withdrawals, List<Change> narrowings) {
                Runnable late = beforeTidy.getAndSet(null);
                if (late != null) {
                    late.run();
                }
                postgresRows.tidy(withdrawals, narrowings);
            }

            @Override
            public void withdrawAll() {
                postgresRows.withdrawAll();
            }
        };
        this.clock = clock;
        expiry = new ExpiryTrust(timing.rowLength(), clock::now);
        fences = new InstanceFences(rows, timing, clock::now, expiry);
        guard = new DurabilityGuard(false, false);
        checkDurability();
        postgres = new PostgresFenceStore(database.dataSource(), id, guard::standbysNamed);
        FenceStore counted = new FenceStore() {
            @Override
            public FenceDecision admit(FenceClaim claim) {
                trips.incrementAndGet();
                return postgres.admit(claim);
            }

            @Override
            public List<FenceDecision> admitAll(List<FenceClaim> claims) {
                trips.incrementAndGet();
                return postgres.admitAll(claims);
            }

            @Override
            public List<FenceDecision> admitAll(List<FenceClaim> claims, BatchRegistration registration) {
                trips.incrementAndGet();
                if (registrationsFail.get() && !registration.minTokens().isEmpty()) {
                    throw new FenceStoreUnavailableException("registrations cut off by the test");
                }
                List<FenceDecision> decisions = postgres.admitAll(claims, registration);
                Runnable pause = afterStoreAnswered.getAndSet(null);
                if (pause != null) {
                    pause.run();
                }
                return decisions;
            }

            @Override
            public void forgetExpiredRegistrations(ResourceKey resource) {
                postgres.forgetExpiredRegistrations(resource);
            }

            @Override
            public Optional<Fence> read(ResourceKey resource) {
                return postgres.read(resource);
            }
        };
        RememberedFences memory = new RememberedFences(remembered);
        admission = new FenceAdmission(counted, fences, memory, claim -> { });
        checker = new FenceChecker(admission, fences, 2, Duration.ofMillis(5), 64, Duration.ofSeconds(2), Duration.ofMillis(100),
                Duration.ofMillis(100), Optional::empty, () -> "test pool");
        listener = listening ? new InflightListener(listenerSource, fences, memory, id).start() : null;
        if (listening) {
            // Starting to listen ends the leases confirmed before it (a row written then could have
            // been deleted unheard), and the writes admitted under them: tests write once it listens.
            awaitListener();
        }
    }

    /** Writes at {@code claim} until a write at it is admitted from the held fence. */
    void holdAt(FenceClaim claim) {
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            int before = trips.get();
            FenceDecision decision = writeAndFinish(claim);
            return decision instanceof FenceDecision.Admitted && trips.get() == before;
        });
    }

    /** Reads the database's durability settings again, as the gateway's checks do each second. */
    void checkDurability() {
        try (java.sql.Connection session = sessions.getConnection()) {
            guard.check(session);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the listener has confirmed, by the test's clock, that it hears every raise. */
    void awaitListener() {
        await().atMost(Duration.ofSeconds(5)).until(fences::hearsRaises);
    }

    FenceDecision write(FenceClaim claim) throws InterruptedException, ExecutionException, TimeoutException {
        readClock();
        return checker.check(claim).get(5, TimeUnit.SECONDS);
    }

    /** A reading of the database's clock, as the gateway's checks make one each second, now by the test's clock; unless turned off. */
    void readClock() {
        if (clockReadings.get()) {
            expiry.clockRead(clock.now());
        }
    }

    void finish(FenceClaim claim) {
        checker.finished(claim, true);
    }

    /** A write that reaches the store and comes back, when admitted; the registrations are reconciled after. */
    FenceDecision writeAndFinish(FenceClaim claim) {
        try {
            FenceDecision decision = write(claim);
            if (decision instanceof FenceDecision.Admitted) {
                finish(claim);
            }
            fences.reconcile();
            return decision;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        checker.close();
        fences.withdrawAllIfIdle();
    }
}
