package dev.fencegate.observability;

import dev.fencegate.fence.FenceDecision;
import dev.fencegate.http.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every metric name of the data path in one place. Labels carry methods, decisions and outcomes,
 * never resource names: one series per resource would grow without bound.
 */
public final class GatewayMetrics {

    private static final Set<String> KNOWN_METHODS = Set.of(
            "GET", "HEAD", "OPTIONS", "PUT", "POST", "PATCH", "DELETE", "CONNECT", "TRACE");
    /** Fence checks are bounded by --fence-timeout (at most 60 s); store exchanges by --upstream-timeout. */
    private static final Duration LONGEST_FENCE_CHECK = Duration.ofSeconds(60);
    private static final Duration LONGEST_STORE_EXCHANGE = Duration.ofMinutes(10);

    private final MeterRegistry registry;
    private final Map<FenceDecision.Kind, Counter> decisions = new EnumMap<>(FenceDecision.Kind.class);
    /** Timers are made on first use: a histogram per possible label set would be mostly empty series. */
    private final Map<FenceDecision.Kind, Timer> fenceChecks = new ConcurrentHashMap<>();
    private final Map<MethodOutcome, Timer> storeExchanges = new ConcurrentHashMap<>();
    /** Request counters by label set, found without a registry lookup on every request. */
    private final Map<MethodOutcome, Counter> requests = new ConcurrentHashMap<>();

    private record MethodOutcome(String method, Outcome outcome) {
    }
    private final Map<Outcome, Counter> refusals = new EnumMap<>(Outcome.class);

    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (FenceDecision.Kind kind : FenceDecision.Kind.values()) {
            decisions.put(kind, Counter.builder("fencegate.fence.decisions")
                    .description("Fence checks by decision")
                    .tag("decision", kind.name().toLowerCase(Locale.ROOT))
                    .register(registry));
        }
        for (Outcome outcome : Outcome.values()) {
            if (outcome != Outcome.FORWARDED && outcome != Outcome.CLIENT_CLOSED) {
                // Registered up front so a dashboard sees a 0, not a missing series, before the first refusal.
                refusals.put(outcome, Counter.builder("fencegate.refusals")
                        .description("Requests the gateway answered itself, by reason")
                        .tag("reason", outcome.tag())
                        .register(registry));
            }
        }
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void fenceDecision(FenceDecision decision) {
        decisions.get(decision.kind()).increment();
    }

    /** Call when a write is handed to the fence; pass the sample to {@link #recordFenceCheck}. */
    public Timer.Sample startFenceCheck() {
        return Timer.start(registry);
    }

    /** Records the fence-check latency by decision; returns it, for the access log. */
    public Duration recordFenceCheck(Timer.Sample sample, FenceDecision decision) {
        Timer timer = fenceChecks.computeIfAbsent(decision.kind(), kind -> Timer.builder("fencegate.fence.check")
                .description("Time from asking the fence to having its decision, queueing included")
                .tag("decision", kind.name().toLowerCase(Locale.ROOT))
                .publishPercentileHistogram()
                .maximumExpectedValue(LONGEST_FENCE_CHECK)
                .register(registry));
        return Duration.ofNanos(sample.stop(timer));
    }

    /** Call when the request is handed to the store connection; pass the sample to {@link #recordStoreExchange}. */
    public Timer.Sample startStoreExchange() {
        return Timer.start(registry);
    }

    /**
     * Records how long the store took, from handing it the request to the end of its answer (or
     * the failure), by method and outcome ({@link Outcome#FORWARDED} when the store answered);
     * returns it, for the access log.
     */
    public Duration recordStoreExchange(Timer.Sample sample, String method, Outcome outcome) {
        Timer timer = storeExchanges.computeIfAbsent(new MethodOutcome(methodLabel(method), outcome), key -> Timer.builder("fencegate.store.exchange")
                .description("Time at the store, from sending the request head to the end of the answer")
                .tag("method", key.method())
                .tag("outcome", key.outcome().tag())
                .publishPercentileHistogram()
                .maximumExpectedValue(LONGEST_STORE_EXCHANGE)
                .register(registry));
        return Duration.ofNanos(sample.stop(timer));
    }

    public void forwarded(String method) {
        request(method, Outcome.FORWARDED);
    }

    /** A request the gateway answered itself: counted by method and outcome, and by refusal reason. */
    public void refused(String method, Outcome outcome) {
        request(method, outcome);
        Counter reason = refusals.get(outcome);
        if (reason != null) {
            reason.increment();
        }
    }

    private void request(String method, Outcome outcome) {
        requests.computeIfAbsent(new MethodOutcome(methodLabel(method), outcome),
                key -> registry.counter("fencegate.requests", "method", key.method(), "outcome", key.outcome().tag())).increment();
    }

    /** Methods outside the known set share one label, so a client cannot mint series. */
    private static String methodLabel(String method) {
        return KNOWN_METHODS.contains(method) ? method : "OTHER";
    }
}
