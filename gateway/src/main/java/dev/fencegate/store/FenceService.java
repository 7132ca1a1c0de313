package dev.fencegate.store;

import dev.fencegate.admin.Readiness;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.fence.FenceAdmission;
import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.fence.LocalInflight;
import dev.fencegate.fence.RememberedFences;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Everything on the fence side of one gateway instance, built and closed together. */
public final class FenceService implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FenceService.class);
    private static final int CHECK_QUEUE_PER_THREAD = 256;
    private static final Duration MONITOR_INTERVAL = Duration.ofSeconds(1);
    /** Below this, a fence timeout of a few milliseconds would have the monitor spin. */
    private static final Duration MIN_MONITOR_BOUND = Duration.ofMillis(50);
    /** Registrations another instance waits on are looked at this often... */
    private static final Duration WANTED_INTERVAL = Duration.ofMillis(50);
    /** ...and all of them this often: a sweep takes the in-flight lock once per registered resource. */
    private static final Duration RECONCILE_INTERVAL = Duration.ofSeconds(1);
    /**
     * How long a resource stays registered after its last local write, keeping steady writers
     * commit-free; another instance waiting on it has it released at once through a notification.
     */
    private static final Duration IDLE_RELEASE = Duration.ofSeconds(10);
    private static final Duration MAX_DRAIN_WAIT = Duration.ofSeconds(30);

    private final FenceDatabase database;
    private final FenceStore store;
    private final FenceStoreMonitor monitor;
    private final FenceChecker checker;
    private final ScheduledExecutorService reconciler;
    private final InflightListener listener;
    private final PostgresInflightRegistrations registrations;

    private FenceService(FenceDatabase database, FenceStore store, FenceStoreMonitor monitor, FenceChecker checker,
                         ScheduledExecutorService reconciler, InflightListener listener,
                         PostgresInflightRegistrations registrations) {
        this.listener = listener;
        this.registrations = registrations;
        this.database = database;
        this.store = store;
        this.monitor = monitor;
        this.checker = checker;
        this.reconciler = reconciler;
    }

    public static FenceService start(GatewayConfig config, Readiness readiness, MeterRegistry registry) {
        UUID instance = UUID.randomUUID();
        FenceDatabase database = FenceDatabase.open(config.database());
        DurabilityGuard guard = new DurabilityGuard(database.dataSource(), config.safety().allowUnsafeDurability(),
                config.safety().requireSyncStandby());
        FenceStoreMonitor monitor = new FenceStoreMonitor(database, guard, readiness);
        // Readiness must follow a dead database within the fence timeout: check at least twice per
        // timeout, and count a check still unanswered after half of it as a failure.
        Duration half = config.database().checkTimeout().dividedBy(2);
        Duration bound = half.compareTo(MIN_MONITOR_BOUND) < 0 ? MIN_MONITOR_BOUND : half;
        monitor.start(bound.compareTo(MONITOR_INTERVAL) < 0 ? bound : MONITOR_INTERVAL, bound);

        // A write may be in flight for the store timeout, and after an unknown outcome for as long again.
        Duration unknownOutcomeHold = config.upstreamTimeout();
        Duration window = config.upstreamTimeout().plus(unknownOutcomeHold);
        LocalInflight local = new LocalInflight();
        PostgresInflightRegistrations registrations = new PostgresInflightRegistrations(database.dataSource(), instance,
                local, window, IDLE_RELEASE);
        FenceStore store = new PostgresFenceStore(database.dataSource(), instance);
        InflightListener listener = new InflightListener(database.dataSource(), registrations).start();
        RememberedFences remembered = new RememberedFences(config.safety().rememberedFences());
        Counter regressions = Counter.builder("fencegate.fence.regressions")
                .description("Claims the fence store admitted below a token this instance had already admitted")
                .register(registry);
        Gauge.builder("fencegate.fence.remembered", remembered, RememberedFences::size).register(registry);
        FenceAdmission admission = new FenceAdmission(store, registrations, local, remembered, claim -> regressions.increment());
        FunctionCounter.builder("fencegate.fence.held.admissions", admission, FenceAdmission::heldAdmissions)
                .description("Claims admitted at a fence this instance holds, without a trip to the fence store")
                .register(registry);
        int threads = config.database().poolSize();
        Duration drainWait = config.upstreamTimeout().compareTo(MAX_DRAIN_WAIT) < 0 ? config.upstreamTimeout() : MAX_DRAIN_WAIT;
        FenceChecker checker = new FenceChecker(admission, local, threads, threads * CHECK_QUEUE_PER_THREAD,
                config.database().checkTimeout(), drainWait, unknownOutcomeHold, guard::refusal,
                () -> describePool(database));

        ScheduledExecutorService reconciler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fence-inflight-reconcile");
            thread.setDaemon(true);
            return thread;
        });
        reconciler.scheduleWithFixedDelay(registrations::reconcileWanted, WANTED_INTERVAL.toMillis(),
                WANTED_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        reconciler.scheduleWithFixedDelay(registrations::reconcile, RECONCILE_INTERVAL.toMillis(),
                RECONCILE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        log.info("Fence instance {}: in-flight window {}, drain wait up to {}", instance, window, drainWait);
        return new FenceService(database, store, monitor, checker, reconciler, listener, registrations);
    }

    private static String describePool(FenceDatabase database) {
        var pool = database.pool();
        return pool == null ? "pool not started"
                : "pool active=" + pool.getActiveConnections() + " idle=" + pool.getIdleConnections()
                + " waiting=" + pool.getThreadsAwaitingConnection();
    }

    public FenceChecker checker() {
        return checker;
    }

    public FenceStore store() {
        return store;
    }

    public FenceDatabase database() {
        return database;
    }

    /** Why the fence database cannot be used, in one line, or empty when its last check passed. */
    public java.util.Optional<String> problem() {
        return java.util.Optional.ofNullable(monitor.problem());
    }

    /** Called after the data port drained: nothing of this instance is in flight any more. */
    @Override
    public void close() {
        checker.close();
        listener.close();
        reconciler.shutdownNow();
        registrations.withdrawAllIfIdle();
        monitor.close();
        database.close();
    }
}
