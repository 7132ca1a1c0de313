package dev.fencegate.store;

import dev.fencegate.admin.Readiness;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.fence.FenceAdmission;
import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.ExpiryTrust;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.LeaseTiming;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceNaming;
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
    /**
     * A second batch of fence checks starts beside a running one only after it has run this long:
     * well above a healthy batch (about 1.3 ms on the test machine, most of it the commit's WAL flush), so at
     * saturation one batch carries what queued during the one before.
     */
    private static final Duration BATCH_OVERLAP = Duration.ofMillis(5);
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
    /**
     * How long a registration row outlives the last moment a write under it may be sent. The
     * sweep renews rows still written under once less than two thirds of it is left, so about
     * once a second; a dead instance holds higher tokens back for the store timeout plus this.
     */
    private static final Duration LEASE_HEADROOM = Duration.ofSeconds(3);

    private final FenceDatabase database;
    private final FenceStore store;
    private final FenceStoreMonitor monitor;
    private final FenceChecker checker;
    private final ScheduledExecutorService reconciler;
    private final InflightListener listener;
    private final InstanceFences fences;
    private final FenceAdmission admission;
    private final PostgresUploadOwners uploads;

    private FenceService(FenceDatabase database, FenceStore store, FenceStoreMonitor monitor, FenceChecker checker,
                         FenceAdmission admission, ScheduledExecutorService reconciler, InflightListener listener,
                         InstanceFences fences, PostgresUploadOwners uploads) {
        this.uploads = uploads;
        this.listener = listener;
        this.fences = fences;
        this.admission = admission;
        this.database = database;
        this.store = store;
        this.monitor = monitor;
        this.checker = checker;
        this.reconciler = reconciler;
    }

    /** @param naming how this instance names resources, which must be the one recorded beside the fences */
    public static FenceService start(GatewayConfig config, ResourceNaming naming, Readiness readiness, MeterRegistry registry) {
        UUID instance = UUID.randomUUID();
        HistoryGuard history = new HistoryGuard(instance, config.safety().allowUnsafeDurability(),
                config.safety().requireSyncStandby());
        DurabilityGuard guard = new DurabilityGuard(config.safety().allowUnsafeDurability(),
                config.safety().requireSyncStandby());
        FenceDatabase database = FenceDatabase.open(config.database(), NamingGuard.sessionKey(naming),
                config.safety().requiresSignatures(), history, guard);
        Duration checkTimeout = config.database().checkTimeout();
        LeaseTiming timing = new LeaseTiming(config.upstreamTimeout(), LEASE_HEADROOM, IDLE_RELEASE);
        // Told by the checks when the database's clock steps forward; asked before any row is taken as ended for having expired.
        ExpiryTrust expiry = new ExpiryTrust(timing.rowLength(), System::nanoTime);
        // A batch that started while its instance's naming was confirmed may still wait for a
        // connection (up to the fence timeout) and run its statement (statement_timeout: a second more).
        NamingGuard namingGuard = new NamingGuard(database.dataSource(), naming, config.scopes().changeNaming(),
                config.safety().requiresSignatures(), instance,
                checkTimeout.multipliedBy(2).plusSeconds(1), System::nanoTime, expiry);
        Gauge.builder("fencegate.fence.history.confirmed", history, watched -> unsigned(watched.confirmedPosition()))
                .baseUnit("bytes")
                .description("WAL position of this instance's last commit the fence database confirmed; a database found"
                        + " behind it went back, and this instance opens no connection to it any more")
                .register(registry);
        Gauge.builder("fencegate.fence.history.went.back", history, watched -> watched.refusal().isPresent() ? 1 : 0)
                .description("1 once the fence database was found behind a commit this instance saw confirmed (restored"
                        + " from a backup, or a standby promoted without every commit): every write is refused until restart")
                .register(registry);
        FenceStoreMonitor monitor = new FenceStoreMonitor(database, guard, history, namingGuard, readiness, expiry);
        FunctionCounter.builder("fencegate.fence.database.clock.steps", monitor, FenceStoreMonitor::databaseClockSteps)
                .description("Steps of the fence database's clock (or suspensions of this host) of more than a second,"
                        + " seen between two checks: registrations expire by that clock")
                .register(registry);
        // Readiness must follow a dead database within the fence timeout: check at least twice per
        // timeout, and count a check still unanswered after half of it as a failure.
        Duration half = config.database().checkTimeout().dividedBy(2);
        Duration bound = half.compareTo(MIN_MONITOR_BOUND) < 0 ? MIN_MONITOR_BOUND : half;
        monitor.start(bound.compareTo(MONITOR_INTERVAL) < 0 ? bound : MONITOR_INTERVAL, bound);

        // After an unknown outcome the store may still apply the write for another store timeout.
        Duration unknownOutcomeHold = config.upstreamTimeout();
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), instance),
                timing, System::nanoTime, expiry);
        PostgresFenceStore store = new PostgresFenceStore(database.dataSource(), instance, guard::standbysNamed,
                config.safety().requireSyncStandby());
        FunctionCounter.builder("fencegate.fence.commits", store, PostgresFenceStore::commits)
                .description("Commits made by fence checks: a batch's registrations and raises share one")
                .register(registry);
        FunctionCounter.builder("fencegate.fence.batches.upserted.again", store, PostgresFenceStore::upsertedAgain)
                .description("Fence-check batches judged a second time, with upserts, because a row their statement"
                        + " meant to insert (a new fence, or a registration) was there")
                .register(registry);
        RememberedFences remembered = new RememberedFences(config.safety().rememberedFences());
        InflightListener listener = new InflightListener(database.dataSource(), fences, remembered, instance).start();
        // Nothing more is said to a database found gone back: the listener stops, and the pool's
        // connections to it are closed as they come back (no new one is opened).
        history.onWentBack(() -> {
            listener.close();
            database.pool().softEvictConnections();
        });
        Gauge.builder("fencegate.fence.listener.fresh", fences, held -> held.hearsRaises() ? 1 : 0)
                .description("1 while this instance's listener has confirmed within the last second, so fences it holds"
                        + " admit writes without a statement; 0 while every write goes to the database")
                .register(registry);
        FunctionCounter.builder("fencegate.fence.listener.losses", fences, InstanceFences::listenerLosses)
                .description("Times this instance's listening connection was lost: held fences stop until it is back")
                .register(registry);
        Counter regressions = Counter.builder("fencegate.fence.regressions")
                .description("Claims the fence store admitted below a token this instance had already admitted")
                .register(registry);
        Gauge.builder("fencegate.fence.remembered", remembered, RememberedFences::size)
                .description("Resources whose highest admitted token this instance remembers, so that it refuses a lower"
                        + " one even if the fence database lost the fence (at most --remembered-fences)")
                .register(registry);
        FenceAdmission admission = new FenceAdmission(store, fences, remembered, claim -> regressions.increment());
        FunctionCounter.builder("fencegate.fence.held.admissions", admission, FenceAdmission::heldAdmissions)
                .description("Claims admitted at a fence this instance holds, without a trip to the fence store")
                .register(registry);
        int threads = config.database().poolSize();
        Duration drainWait = config.upstreamTimeout().compareTo(MAX_DRAIN_WAIT) < 0 ? config.upstreamTimeout() : MAX_DRAIN_WAIT;
        FenceChecker checker = new FenceChecker(admission, fences, threads, BATCH_OVERLAP, threads * CHECK_QUEUE_PER_THREAD,
                config.database().checkTimeout(), drainWait, unknownOutcomeHold, monitor::refusal,
                () -> describePool(database));

        ScheduledExecutorService reconciler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fence-inflight-reconcile");
            thread.setDaemon(true);
            return thread;
        });
        reconciler.scheduleWithFixedDelay(fences::reconcileWanted, WANTED_INTERVAL.toMillis(),
                WANTED_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        reconciler.scheduleWithFixedDelay(fences::reconcile, RECONCILE_INTERVAL.toMillis(),
                RECONCILE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        log.info("Fence instance {}: registrations last {}, renewed every {} while written under; a raise waits up to {}"
                + " for lower-token writes in flight", instance, timing.rowLength(), RECONCILE_INTERVAL, drainWait);
        PostgresUploadOwners uploads = new PostgresUploadOwners(database.dataSource(),
                config.operations().multipartUploadLifetime());
        FunctionCounter.builder("fencegate.multipart.uploads.forgotten", uploads, PostgresUploadOwners::forgotten)
                .description("Multipart upload records this instance deleted once older than --multipart-upload-lifetime")
                .register(registry);
        return new FenceService(database, store, monitor, checker, admission, reconciler, listener, fences, uploads);
    }

    private static double unsigned(long value) {
        return (value >>> 1) * 2.0 + (value & 1);
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

    /** Which object each multipart upload id belongs to. */
    public PostgresUploadOwners uploads() {
        return uploads;
    }

    /** Where every raise this instance makes goes through, the admin port's included. */
    public FenceAdmission admission() {
        return admission;
    }

    public FenceStore store() {
        return store;
    }

    public FenceDatabase database() {
        return database;
    }

    /** Why this instance's naming does not hold now (another is recorded, or a change is under way), or empty. */
    public java.util.Optional<String> namingRefusal() {
        return monitor.namingRefusal();
    }

    /** Why this instance asks the fence database nothing more (it went back under it), or empty. */
    public java.util.Optional<String> historyRefusal() {
        return monitor.historyRefusal();
    }

    /** Why the fence database cannot be used, in one line, or empty when its last check passed. */
    public java.util.Optional<String> problem() {
        return java.util.Optional.ofNullable(monitor.problem());
    }

    /** Called after the data port drained: nothing of this instance is in flight any more. */
    @Override
    public void close() {
        checker.close();
        uploads.close();
        listener.close();
        reconciler.shutdownNow();
        fences.withdrawAllIfIdle();
        monitor.close();
        database.close();
    }
}
