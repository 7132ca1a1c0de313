package dev.fencegate.loadtest;

import org.HdrHistogram.Histogram;

/** The merged outcome of a run; the histogram is kept so rounds can be merged later. */
public record Measurement(LoadSettings settings, String transport, Histogram latencyMicros, Counts counts) {

    public RunResult result() {
        double seconds = settings.duration().toNanos() / 1e9;
        return new RunResult(settings.url().toString(), settings.mode(),
                settings.saturating() ? null : settings.rate(), settings.connections(), transport,
                seconds, Math.round(counts.answered() / seconds * 10) / 10.0,
                LatencySummary.of(latencyMicros), counts);
    }

    /** Writes that reached the target during the whole run, warm-up included, for cost per write. */
    public long answeredIncludingWarmup() {
        return counts.answered() + counts.warmupAnswered();
    }
}
