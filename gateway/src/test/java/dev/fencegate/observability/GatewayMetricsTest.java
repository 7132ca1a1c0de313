package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.http.Outcome;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the data path reports on /metrics: latency histograms, refusals by reason; never a resource name. */
class GatewayMetricsTest {

    private static final String RESOURCE = "/secret-bucket/customer-4711.csv";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final GatewayMetrics metrics = new GatewayMetrics(registry);

    @Test
    void theFenceCheckIsAHistogramByDecision() {
        Timer.Sample sample = metrics.startFenceCheck();

        Duration took = metrics.recordFenceCheck(sample, admitted());

        assertThat(took).isPositive();
        assertThat(registry.scrape())
                .contains("fencegate_fence_check_seconds_bucket{decision=\"admitted\",le=\"")
                .contains("fencegate_fence_check_seconds_count{decision=\"admitted\"} 1");
    }

    @Test
    void theStoreExchangeIsAHistogramByMethodAndOutcome() {
        metrics.recordStoreExchange(metrics.startStoreExchange(), "PUT", Outcome.FORWARDED);
        metrics.recordStoreExchange(metrics.startStoreExchange(), "PUT", Outcome.STORE_TIMEOUT);
        metrics.recordStoreExchange(metrics.startStoreExchange(), "BREW", Outcome.FORWARDED);

        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("fencegate_store_exchange_seconds_bucket{method=\"PUT\",outcome=\"forwarded\",le=\"")
                .contains("fencegate_store_exchange_seconds_count{method=\"PUT\",outcome=\"store-timeout\"} 1")
                .contains("fencegate_store_exchange_seconds_count{method=\"OTHER\",outcome=\"forwarded\"} 1")
                .doesNotContain("BREW");
    }

    @Test
    void refusalsAreCountedByReasonFromZero() {
        assertThat(registry.scrape()).contains("fencegate_refusals_total{reason=\"stale-token\"} 0.0");

        metrics.refused("PUT", Outcome.STALE_TOKEN);
        metrics.refused("PUT", Outcome.STALE_TOKEN);
        metrics.refused("DELETE", Outcome.MISSING_TOKEN);
        metrics.forwarded("GET");

        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("fencegate_refusals_total{reason=\"stale-token\"} 2.0")
                .contains("fencegate_refusals_total{reason=\"missing-token\"} 1.0")
                .contains("fencegate_requests_total{method=\"PUT\",outcome=\"stale-token\"} 2.0")
                .contains("fencegate_requests_total{method=\"GET\",outcome=\"forwarded\"} 1.0")
                .doesNotContain("reason=\"forwarded\"");
    }

    /** Decisions carry the resource; the metrics must drop it, or each resource becomes a series. */
    @Test
    void noResourceNameReachesALabel() {
        FenceDecision stale = new FenceDecision.Stale(claim(3), new dev.fencegate.fence.Fence(
                new ResourceKey(RESOURCE), new FencingToken(9), Optional.empty()));
        metrics.fenceDecision(stale);
        metrics.recordFenceCheck(metrics.startFenceCheck(), stale);
        metrics.refused("PUT", Outcome.STALE_TOKEN);

        assertThat(registry.scrape()).doesNotContain("customer-4711").doesNotContain("secret-bucket");
    }

    private static FenceDecision admitted() {
        return new FenceDecision.Admitted(claim(5), Optional.empty());
    }

    private static FenceClaim claim(long token) {
        return new FenceClaim(new ResourceKey(RESOURCE), new FencingToken(token), Optional.empty());
    }
}
