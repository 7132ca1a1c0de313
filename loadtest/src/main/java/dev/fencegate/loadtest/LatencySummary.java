package dev.fencegate.loadtest;

import org.HdrHistogram.Histogram;

/** Latency percentiles in milliseconds, from a histogram of microseconds. */
public record LatencySummary(double p50, double p90, double p99, double p999, double max, double mean) {

    public static LatencySummary of(Histogram micros) {
        if (micros.getTotalCount() == 0) {
            return new LatencySummary(0, 0, 0, 0, 0, 0);
        }
        return new LatencySummary(
                millis(micros.getValueAtPercentile(50)),
                millis(micros.getValueAtPercentile(90)),
                millis(micros.getValueAtPercentile(99)),
                millis(micros.getValueAtPercentile(99.9)),
                millis(micros.getMaxValue()),
                Math.round(micros.getMean()) / 1000.0);
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }
}
