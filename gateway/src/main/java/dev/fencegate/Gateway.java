package dev.fencegate;

import dev.fencegate.admin.AdminEndpoints;
import dev.fencegate.admin.Readiness;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.observability.GatewayMetrics;
import dev.fencegate.proxy.AdminServer;
import dev.fencegate.proxy.GatewayServer;
import dev.fencegate.store.FenceDatabase;
import dev.fencegate.store.FenceStoreMonitor;
import dev.fencegate.store.PostgresFenceStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One running gateway: wiring and lifecycle only. */
public final class Gateway implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Gateway.class);
    private static final int CHECK_QUEUE_PER_THREAD = 256;
    private static final Duration MONITOR_INTERVAL = Duration.ofSeconds(1);
    private static final Duration DRAIN = Duration.ofSeconds(10);

    private final Readiness readiness;
    private final FenceDatabase database;
    private final FenceStoreMonitor monitor;
    private final FenceChecker checker;
    private final AdminServer admin;
    private final GatewayServer server;

    private Gateway(Readiness readiness, FenceDatabase database, FenceStoreMonitor monitor, FenceChecker checker,
                    AdminServer admin, GatewayServer server) {
        this.readiness = readiness;
        this.database = database;
        this.monitor = monitor;
        this.checker = checker;
        this.admin = admin;
        this.server = server;
    }

    public static Gateway start(GatewayConfig config) throws InterruptedException {
        Readiness readiness = new Readiness();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        FenceDatabase database = FenceDatabase.open(config.database());
        FenceStoreMonitor monitor = new FenceStoreMonitor(database, readiness);
        monitor.start(MONITOR_INTERVAL);
        FenceStore store = new PostgresFenceStore(database.dataSource());
        int threads = config.database().poolSize();
        FenceChecker checker = new FenceChecker(store, threads, threads * CHECK_QUEUE_PER_THREAD,
                config.database().checkTimeout(), () -> describePool(database));
        AdminServer admin = null;
        try {
            admin = AdminServer.start(config.adminListen(), new AdminEndpoints(readiness, registry));
            GatewayServer server = GatewayServer.start(config, checker, new GatewayMetrics(registry));
            readiness.serving();
            log.info("Fencegate ready on {} (admin {}), fences in {}", config.listen(), config.adminListen(),
                    config.database().describe());
            return new Gateway(readiness, database, monitor, checker, admin, server);
        } catch (InterruptedException | RuntimeException e) {
            if (admin != null) {
                admin.close();
            }
            checker.close();
            monitor.close();
            database.close();
            throw e;
        }
    }

    private static String describePool(FenceDatabase database) {
        var pool = database.pool();
        return pool == null ? "pool not started"
                : "pool active=" + pool.getActiveConnections() + " idle=" + pool.getIdleConnections()
                + " waiting=" + pool.getThreadsAwaitingConnection();
    }

    public int port() {
        return server.port();
    }

    public int adminPort() {
        return admin.port();
    }

    public boolean ready() {
        return readiness.ready();
    }

    /** Not ready first, so balancers stop sending; then drain in-flight requests; then close pools. */
    @Override
    public void close() {
        readiness.draining();
        server.close(DRAIN);
        checker.close();
        monitor.close();
        admin.close();
        database.close();
        log.info("Fencegate stopped");
    }
}
