package dev.fencegate.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The admin port's routes: liveness, readiness and Prometheus metrics. */
public final class AdminEndpoints {

    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final Readiness readiness;
    private final PrometheusMeterRegistry registry;

    public AdminEndpoints(Readiness readiness, PrometheusMeterRegistry registry) {
        this.readiness = readiness;
        this.registry = registry;
    }

    public AdminResponse handle(String method, String path) {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            return AdminResponse.text(405, "method not allowed");
        }
        return switch (path) {
            case "/livez" -> AdminResponse.text(200, "alive");
            case "/readyz" -> AdminResponse.text(readiness.ready() ? 200 : 503, readiness.describe());
            case "/metrics" -> new AdminResponse(200, PROMETHEUS_TEXT,
                    registry.scrape().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            default -> AdminResponse.text(404, "not found: " + path);
        };
    }
}
