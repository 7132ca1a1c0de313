package dev.fencegate.store;

import dev.fencegate.admin.Readiness;
import dev.fencegate.fence.ExpiryTrust;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Migrates the schema as soon as the database can be reached, then keeps checking that it
 * answers, and tells {@link Readiness}. A check that has not answered within its bound counts as
 * a failure at once, so readiness follows a dead database within the fence timeout instead of
 * waiting out the pool's; the check itself goes on, and its own error then names the cause.
 * Runs on threads of its own, never on an event loop.
 */
public final class FenceStoreMonitor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FenceStoreMonitor.class);

    private final FenceDatabase database;
    private final DurabilityGuard guard;
    private final HistoryGuard history;
    private final NamingGuard naming;
    private final Readiness readiness;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> daemon(runnable, "fence-store-monitor"));
    private final ExecutorService prober = Executors.newSingleThreadExecutor(runnable -> daemon(runnable, "fence-store-probe"));
    /**
     * Commits the history guard's row on a thread of its own: a commit can wait (for a synchronous
     * standby, say), and the checks, readiness and the naming's confirmation must not wait with it.
     */
    private final ScheduledExecutorService confirmer = Executors.newSingleThreadScheduledExecutor(
            runnable -> daemon(runnable, "fence-history-confirm"));
    /** Read on each check, on the probe thread, with the check's own statement. */
    private final DatabaseClockWatch clock;
    private volatile boolean migrated;
    private volatile boolean lastReachable = true;
    private volatile String lastProblem;
    /** Touched by the timer thread only. */
    private Future<?> probe;

    public FenceStoreMonitor(FenceDatabase database, DurabilityGuard guard, HistoryGuard history, NamingGuard naming,
                             Readiness readiness) {
        this(database, guard, history, naming, readiness, ExpiryTrust.unwatched());
    }

    /** @param expiry told of each reading of the database's clock the checks make, and of each step forward they see */
    public FenceStoreMonitor(FenceDatabase database, DurabilityGuard guard, HistoryGuard history, NamingGuard naming,
                             Readiness readiness, ExpiryTrust expiry) {
        this.clock = new DatabaseClockWatch(System::nanoTime, expiry);
        this.database = database;
        this.guard = guard;
        this.history = history;
        this.naming = naming;
        this.readiness = readiness;
    }

    /**
     * Checks once now and waits for the answer, so that a healthy start is ready at once and a
     * broken one knows why; then checks every {@code interval}, each check bounded by {@code bound}.
     */
    public void start(Duration interval, Duration bound) {
        probe = prober.submit(this::check);
        await(Duration.ofDays(1));
        timer.scheduleWithFixedDelay(() -> tick(bound), interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        confirmer.scheduleWithFixedDelay(this::confirmHistory, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Commits the history guard's row, while the settings keep a commit (a commit on a server that
     * can lose it confirms nothing). A failure is the checks' to report; this only tries again.
     */
    private void confirmHistory() {
        if (!migrated || !guard.safe() || history.refusal().isPresent()) {
            return;
        }
        try (Connection connection = database.dataSource().getConnection()) {
            history.confirm(connection);
        } catch (SQLException | RuntimeException e) {
            log.debug("Fence history not confirmed this time: {}", DatabaseProblem.describe(e));
        }
    }

    public boolean migrated() {
        return migrated;
    }

    /** Why the database cannot be used, in one line, or null when the last check passed. */
    public String problem() {
        return lastReachable ? null : lastProblem;
    }

    private void tick(Duration bound) {
        if (probe.isDone()) {
            probe = prober.submit(this::check);
        }
        await(bound);
    }

    private void await(Duration bound) {
        try {
            probe.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // Already known to be down: keep the cause the last check found, rather than "no answer".
            if (!probe.isDone() && lastReachable) {
                unreachable("the fence database did not answer within " + bound.toMillis() + " ms");
            }
        } catch (ExecutionException e) {
            unreachable(DatabaseProblem.describe(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void check() {
        Optional<String> wentBack = history.refusal();
        if (wentBack.isPresent()) {
            // No connection to it is taken any more: the pool would only wait out its timeout.
            unreachable(wentBack.get());
            return;
        }
        try {
            if (!migrated) {
                MigrateResult result = database.migrate();
                log.info(schemaLine(result));
                if (result.initialSchemaVersion == null) {
                    try {
                        warnIfBesideOtherFences(database.otherFenceSchemas());
                    } catch (SQLException e) {
                        // Said now or never: the next start finds the schema made.
                        log.warn("Fence schema created empty now; whether other schemas of its database hold the gateway's"
                                + " tables could not be read: {}", DatabaseProblem.describe(e));
                    }
                }
                migrated = true;
                readiness.migrated();
            }
            try (Connection connection = database.dataSource().getConnection()) {
                // Both tables every write may need: a lock held on either (a migration rebuilding its
                // keys, say) refuses fence-changing writes, so it must make the instance unready too.
                clock.readWith(connection, "(SELECT 1 FROM fence LIMIT 1), (SELECT 1 FROM fence_inflight LIMIT 1)");
                // Every check, not only each new connection: behind a connection pooler the server can
                // change under a connection that stays open.
                history.verify(connection);
                guard.check(connection);
            }
            naming.check();
            reachable();
        } catch (Exception e) {
            unreachable(DatabaseProblem.describe(e));
        }
    }

    /**
     * A fence schema made now starts with no fence: a --db-schema spelt wrong, or a database other
     * than the fleet's, admits every token for every resource. Nothing here can tell that from a
     * first start, but a schema made beside others that hold fences is said, at WARN.
     */
    static void warnIfBesideOtherFences(List<String> others) {
        if (!others.isEmpty()) {
            log.warn("Fence schema created empty now, in a database whose schema(s) {} hold the gateway's tables: this"
                    + " instance starts with none of their fences; if it is meant to share them, its --db-schema is wrong:"
                    + " stop it and set the schema they use", others);
        }
    }

    /** Flyway names no target when it applied nothing; the schema is then at the version it found. */
    static String schemaLine(MigrateResult result) {
        String version = result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion;
        return "Fence schema at version " + version + " (" + result.migrationsExecuted + " migrations applied now)";
    }

    private synchronized void reachable() {
        if (!lastReachable) {
            log.info("Fence store available again");
        }
        lastReachable = true;
        var refusal = refusal();
        readiness.fenceStoreReachable(refusal.isEmpty(), refusal.orElse(null));
    }

    private synchronized void unreachable(String problem) {
        if (lastReachable) {
            log.warn("Fence store unavailable; writes are refused with 503 until it can be used again: {}", problem);
        }
        lastReachable = false;
        lastProblem = problem;
        guard.uncheckable(problem);
        readiness.fenceStoreReachable(false, problem);
    }

    /** How many steps of the fence database's clock the checks have seen (see {@link DatabaseClockWatch}). */
    public long databaseClockSteps() {
        return clock.steps();
    }

    /** Why this instance asks the fence database nothing more (it went back under it), or empty. */
    public Optional<String> historyRefusal() {
        return history.refusal();
    }

    /** Why this instance's naming is not the one the fence database records and carried now, or empty. */
    public Optional<String> namingRefusal() {
        return naming.refusal();
    }

    /** Why writes must be refused now (the database's durability or history, or this instance's naming), or empty. */
    public Optional<String> refusal() {
        Optional<String> durability = guard.refusal();
        if (durability.isPresent()) {
            return durability;
        }
        Optional<String> wentBack = history.refusal();
        return wentBack.isPresent() ? wentBack : naming.refusal();
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }

    @Override
    public void close() {
        confirmer.shutdownNow();
        timer.shutdownNow();
        prober.shutdownNow();
    }
}
