package dev.fencegate.observability;

import dev.fencegate.fence.FenceDecision;
import dev.fencegate.http.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Every metric name in one place. Labels carry outcomes and methods, never resource names. */
public final class GatewayMetrics {

    private static final Set<String> KNOWN_METHODS = Set.of(
            "GET", "HEAD", "OPTIONS", "PUT", "POST", "PATCH", "DELETE", "CONNECT", "TRACE");

    private final MeterRegistry registry;
    private final Map<FenceDecision.Kind, Counter> decisions = new EnumMap<>(FenceDecision.Kind.class);

    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (FenceDecision.Kind kind : FenceDecision.Kind.values()) {
            decisions.put(kind, Counter.builder("fencegate.fence.decisions")
                    .description("Fence checks by decision")
                    .tag("decision", kind.name().toLowerCase(Locale.ROOT))
                    .register(registry));
        }
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void fenceDecision(FenceDecision decision) {
        decisions.get(decision.kind()).increment();
    }

    public void forwarded(String method) {
        request(method, Outcome.FORWARDED);
    }

    public void refused(String method, Outcome outcome) {
        request(method, outcome);
    }

    private void request(String method, Outcome outcome) {
        String label = KNOWN_METHODS.contains(method) ? method : "OTHER";
        registry.counter("fencegate.requests", "method", label, "outcome", outcome.tag()).increment();
    }
}
