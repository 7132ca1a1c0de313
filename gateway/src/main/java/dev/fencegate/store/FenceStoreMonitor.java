package dev.fencegate.store;

import dev.fencegate.admin.Readiness;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Migrates the schema as soon as the database can be reached, then keeps checking that it
 * answers, and tells {@link Readiness}. Runs on its own thread, never on an event loop.
 */
public final class FenceStoreMonitor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FenceStoreMonitor.class);

    private final FenceDatabase database;
    private final DurabilityGuard guard;
    private final Readiness readiness;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "fence-store-monitor");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean migrated;
    private volatile boolean lastReachable = true;

    public FenceStoreMonitor(FenceDatabase database, DurabilityGuard guard, Readiness readiness) {
        this.database = database;
        this.guard = guard;
        this.readiness = readiness;
    }

    /** Tries to migrate now, so that a healthy start is ready at once; keeps trying if it fails. */
    public void start(Duration interval) {
        tick();
        timer.scheduleWithFixedDelay(this::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean migrated() {
        return migrated;
    }

    private void tick() {
        try {
            if (!migrated) {
                MigrateResult result = database.migrate();
                log.info("Fence schema at version {} ({} migrations applied now)",
                        result.targetSchemaVersion == null ? "current" : result.targetSchemaVersion, result.migrationsExecuted);
                migrated = true;
                readiness.migrated();
            }
            try (Connection connection = database.dataSource().getConnection();
                 Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1 FROM fence LIMIT 1");
            }
            guard.check();
            if (!lastReachable) {
                log.info("Fence store reachable again");
            }
            lastReachable = true;
            var refusal = guard.refusal();
            readiness.fenceStoreReachable(refusal.isEmpty(), refusal.orElse(null));
        } catch (Exception e) {
            if (lastReachable) {
                log.warn("Fence store unreachable; writes are refused with 503 until it answers: {}", e.getMessage());
            }
            lastReachable = false;
            readiness.fenceStoreReachable(false, e.getMessage());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
