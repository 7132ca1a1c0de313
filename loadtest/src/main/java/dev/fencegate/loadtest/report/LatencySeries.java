package dev.fencegate.loadtest.report;

import dev.fencegate.loadtest.LatencySummary;
import java.util.HashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Latency histograms merged over rounds, per target and offered rate. Percentiles of merged
 * histograms, not averages of per-round percentiles, which have no meaning.
 */
public final class LatencySeries {
    private record Key(String target, Double offeredRate) {
    }

    private final Map<Key, Histogram> merged = new HashMap<>();

    /** {@code offeredRate} null for saturation runs. */
    public void add(String target, Double offeredRate, Histogram latencyMicros) {
        merged.computeIfAbsent(new Key(target, offeredRate), key -> new Histogram(3)).add(latencyMicros);
    }

    public LatencySummary summary(String target, Double offeredRate) {
        Histogram histogram = merged.get(new Key(target, offeredRate));
        return histogram == null ? LatencySummary.of(new Histogram(3)) : LatencySummary.of(histogram);
    }
}
