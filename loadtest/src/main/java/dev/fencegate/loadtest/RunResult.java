package dev.fencegate.loadtest;

/**
 * The JSON summary of one run. Throughput counts answers to the requests meant for the measured
 * window; at a fixed rate it falls below the offered rate once the target cannot keep up.
 */
public record RunResult(
        String url, String mode, Double offeredRate, int connections, String transport,
        double seconds, double throughput, LatencySummary latencyMs, Counts counts) {
}
