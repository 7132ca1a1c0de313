package dev.fencegate.admin;

import dev.fencegate.http.ClaimRules;
import dev.fencegate.observability.ClientText;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The admin port's routes: liveness, readiness and Prometheus metrics, open to whoever reaches
 * the port (probes and scrapers carry no credentials), and the fence endpoints, which may be
 * guarded by a bearer token (see {@link FenceRoutes}).
 */
public final class AdminEndpoints {

    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final Readiness readiness;
    private final PrometheusMeterRegistry registry;
    private final Optional<FenceRoutes> fences;

    /** Without fence endpoints. */
    public AdminEndpoints(Readiness readiness, PrometheusMeterRegistry registry) {
        this(readiness, registry, Optional.empty());
    }

    /** @param claims how the data port names the resource a write is checked against */
    public AdminEndpoints(Readiness readiness, PrometheusMeterRegistry registry, FenceAdmin fences, AdminAuth auth, ClaimRules claims) {
        this(readiness, registry, Optional.of(new FenceRoutes(fences, auth, claims)));
    }

    AdminEndpoints(Readiness readiness, PrometheusMeterRegistry registry, Optional<FenceRoutes> fences) {
        this.readiness = readiness;
        this.registry = registry;
        this.fences = fences;
    }

    /** Whether answering {@code rawPath} may block (the fence endpoints ask the fence store, and a raise may wait). */
    public boolean mayBlock(String rawPath) {
        return fences.isPresent() && rawPath.startsWith(FenceRoutes.PREFIX);
    }

    /** Whether the fence endpoints demand the admin token (else only loopback and the cross-site gate guard them). */
    public boolean requiresToken() {
        return fences.map(FenceRoutes::requiresToken).orElse(false);
    }

    /** May block on the fence store for /fences: call it off the event loop. */
    public AdminResponse handle(AdminRequest request) {
        if (request.rawPath().startsWith(FenceRoutes.PREFIX) && fences.isPresent()) {
            return fences.get().handle(request);
        }
        if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
            return AdminResponse.text(405, "method not allowed");
        }
        return switch (request.rawPath()) {
            case "/livez" -> AdminResponse.text(200, "alive");
            case "/readyz" -> AdminResponse.text(readiness.ready() ? 200 : 503, readiness.describe());
            case "/metrics" -> new AdminResponse(200, PROMETHEUS_TEXT, registry.scrape().getBytes(StandardCharsets.UTF_8));
            default -> AdminResponse.text(404, "not found: " + ClientText.shown(request.rawPath()));
        };
    }

    /** For callers with only a method and a path. */
    public AdminResponse handle(String method, String path) {
        return handle(AdminRequest.of(method, path));
    }
}
