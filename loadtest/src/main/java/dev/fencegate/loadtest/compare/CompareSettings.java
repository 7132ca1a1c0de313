package dev.fencegate.loadtest.compare;

import dev.fencegate.loadtest.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The whole comparison, fixed before any process starts. {@code countCommits} costs waiting
 * time: PostgreSQL publishes commit counts up to ten seconds late.
 */
record CompareSettings(
        Path gatewayJar, Path storeJar, Path outDir, int rounds, Phases saturation, Phases fixedRate, Duration drain,
        List<Double> fractions, RateBasis ratesOf, int connections, int bodySize, int resources, int storeDelayMs,
        String dbUrl, String dbUser, String dbPassword, boolean countCommits,
        boolean useNginx, String nginxCommand, String nginxWorkers, String gatewayHeap, boolean reads,
        Workload workload) {

    CompareSettings {
        fractions = List.copyOf(fractions);
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds: " + rounds + " (expected: >= 1)");
        }
        if (fractions.isEmpty() || fractions.stream().anyMatch(f -> !(f > 0) || f > 1)) {
            throw new IllegalArgumentException("fractions: " + fractions + " (expected: one or more in (0, 1])");
        }
        if (storeDelayMs < 0) {
            throw new IllegalArgumentException("store-delay-ms: " + storeDelayMs + " (expected: >= 0)");
        }
    }

    String discardStoreName() {
        return storeDelayMs == 0 ? "discard" : "discard+" + storeDelayMs + "ms";
    }
}
