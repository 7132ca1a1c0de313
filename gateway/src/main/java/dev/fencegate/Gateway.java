package dev.fencegate;

import dev.fencegate.admin.AdminAuth;
import dev.fencegate.admin.AdminEndpoints;
import dev.fencegate.admin.FenceAdmin;
import dev.fencegate.admin.Readiness;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.HostPort;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.FenceNaming;
import dev.fencegate.observability.GatewayMetrics;
import dev.fencegate.observability.RuntimeMetrics;
import dev.fencegate.proxy.AdminServer;
import dev.fencegate.proxy.ConnectionBounds;
import dev.fencegate.proxy.GatewayServer;
import dev.fencegate.proxy.ListenAddresses;
import dev.fencegate.store.FenceService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One running gateway: wiring and lifecycle only. */
public final class Gateway implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Gateway.class);
    private static final Duration DRAIN = Duration.ofSeconds(10);

    private final Readiness readiness;
    private final FenceService fences;
    private final AdminServer admin;
    private final GatewayServer server;
    private final RuntimeMetrics runtimeMetrics;

    private Gateway(Readiness readiness, FenceService fences, AdminServer admin, GatewayServer server,
                    RuntimeMetrics runtimeMetrics) {
        this.readiness = readiness;
        this.fences = fences;
        this.admin = admin;
        this.server = server;
        this.runtimeMetrics = runtimeMetrics;
    }

    public static Gateway start(GatewayConfig config) throws InterruptedException {
        // Before the fence database is touched: a start that cannot listen changes nothing there.
        ListenAddresses.requireFree(config.listen(), config.adminListen());
        Readiness readiness = new Readiness();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        FenceService fences = FenceService.start(config, naming(config), readiness, registry);
        // Hikari takes a registry on a running pool (once): connections, pending threads, acquire times.
        fences.database().dataSource().setMetricRegistry(registry);
        RuntimeMetrics runtimeMetrics = RuntimeMetrics.bindTo(registry);
        AdminServer admin = null;
        try {
            ClaimRules claims = GatewayServer.claimRules(config);
            admin = AdminServer.start(config.adminListen(), new AdminEndpoints(readiness, registry,
                    FenceAdmin.over(fences.store(), fences.admission(), fences::namingRefusal, fences::historyRefusal), AdminAuth.of(config.operations().adminTokenIfSet()),
                    claims),
                    ConnectionBounds.of(config));
            GatewayServer server = GatewayServer.start(config, claims, fences.checker(), fences.uploads(), new GatewayMetrics(registry));
            // Before serving() (it waits up to the connect timeout), so that the start's line comes right
            // after the state it tells is taken, and before any change of it is logged.
            Optional<String> storeProblem = server.storeProblem(config.upstreamConnectTimeout());
            boolean ready = readiness.serving();
            storeProblem.ifPresent(problem ->
                    log.warn("Store {} not reachable now ({}); requests get 502 until it answers", config.upstream(), problem));
            HostPort listening = new HostPort(config.listen().host(), server.port());
            HostPort adminListening = new HostPort(config.adminListen().host(), admin.port());
            String tokens = config.safety().requiresSignatures() ? "tokens signed" : "tokens unsigned";
            if (ready) {
                log.info("Fencegate ready on {} (admin {}), fences in {}, {}", listening, adminListening,
                        config.database().describe(), tokens);
            } else {
                log.error("Fencegate NOT READY on {} (admin {}), {}: {}; writes get 503 and /readyz 503 until that is fixed",
                        listening, adminListening, tokens, readiness.describe());
            }
            return new Gateway(readiness, fences, admin, server, runtimeMetrics);
        } catch (Throwable e) {
            if (admin != null) {
                admin.close();
            }
            runtimeMetrics.close();
            fences.close();
            throw e;
        }
    }

    /**
     * What start builds from the settings before it serves, short of connecting: the naming (its
     * scopes), the claim rules (the token key) and the data port's keystores. check-config runs it,
     * so it refuses what start would.
     */
    static void check(GatewayConfig config) {
        naming(config);
        GatewayServer.claimRules(config);
        GatewayServer.checkTls(config);
    }

    /** How these settings name the resources they fence. */
    static FenceNaming naming(GatewayConfig config) {
        return FenceNaming.of(config.limits().storeKind().value(), config.limits().virtualHostDomainList(),
                config.upstreamPathPrefix(), config.scopes().templates());
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
        fences.close();
        admin.close();
        runtimeMetrics.close();
        log.info("Fencegate stopped");
    }
}
