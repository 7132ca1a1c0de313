package dev.fencegate.loadtest;

import java.net.URI;
import java.time.Duration;

/**
 * Everything one load run needs, validated once. {@code rate} 0 or {@code saturate} means a
 * closed-loop saturation run; otherwise requests go out open-loop at {@code rate} per second.
 */
public record LoadSettings(
        URI url, String method, int bodySize, int connections, int threads,
        Duration warmup, Duration duration, Duration drain, Duration timeout,
        double rate, boolean saturate,
        int resources, String prefix, TokenPattern pattern, double share, boolean reads,
        long tokenBase, long seed) {

    public LoadSettings {
        require(url.getScheme() != null && url.getScheme().equals("http") && url.getHost() != null,
                "url", url, "http://host:port");
        require(connections >= 1, "connections", connections, ">= 1");
        require(threads >= 1 && threads <= connections, "threads", threads, "1 to connections");
        require(bodySize >= 0, "body-size", bodySize, ">= 0");
        require(resources >= 1, "resources", resources, ">= 1");
        require(!(rate < 0) && Double.isFinite(rate), "rate", rate, ">= 0 (0 saturates)");
        require(share >= 0 && share <= 1, "share", share, "0 to 1");
        require(!duration.isNegative() && !duration.isZero(), "duration", duration, "> 0");
        require(!warmup.isNegative(), "warmup", warmup, ">= 0");
        require(!timeout.isNegative() && !timeout.isZero(), "timeout", timeout, "> 0");
        require(!pattern.raisesTokens() || reads || resources >= connections, "resources", resources,
                ">= connections (" + connections + ") for " + pattern + ", so each resource has one writer");
        require(prefix.startsWith("/"), "prefix", prefix, "a path starting with /");
        method = reads ? "GET" : method.toUpperCase(java.util.Locale.ROOT);
    }

    public static LoadSettings defaults(URI url) {
        return new LoadSettings(url, "PUT", 4096, 32, defaultThreads(32),
                Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(10),
                0, true, 1024, "/loadtest", TokenPattern.STEADY, 0.1, false,
                TokenBook.baseFromClock(), 1);
    }

    /**
     * One event loop per core. Idle loops cost nothing at a fixed rate, and at saturation one
     * loop on two cores capped a do-nothing store well below what two reached.
     */
    public static int defaultThreads(int connections) {
        return Math.max(1, Math.min(connections, Runtime.getRuntime().availableProcessors()));
    }

    public boolean saturating() {
        return saturate || rate == 0;
    }

    public String mode() {
        return saturating() ? "saturation" : "fixed-rate";
    }

    public LoadSettings atRate(double offered) {
        return new LoadSettings(url, method, bodySize, connections, threads, warmup, duration, drain, timeout,
                offered, offered == 0, resources, prefix, pattern, share, reads, tokenBase, seed);
    }

    public LoadSettings withPhases(Duration warm, Duration measured, Duration drainFor) {
        return new LoadSettings(url, method, bodySize, connections, threads, warm, measured, drainFor, timeout,
                rate, saturate, resources, prefix, pattern, share, reads, tokenBase, seed);
    }

    public LoadSettings aimedAt(URI target, String pathPrefix) {
        return new LoadSettings(target, method, bodySize, connections, threads, warmup, duration, drain, timeout,
                rate, saturate, resources, pathPrefix, pattern, share, reads, TokenBook.baseFromClock(), seed);
    }

    /** A first token above anything an earlier run on the same resources reached. */
    public static long tokenBaseFromClock() {
        return TokenBook.baseFromClock();
    }

    /** Every resource's first token; runs sharing a base write at the tokens the earlier ones left. */
    public LoadSettings withTokenBase(long base) {
        return new LoadSettings(url, method, bodySize, connections, threads, warmup, duration, drain, timeout,
                rate, saturate, resources, prefix, pattern, share, reads, base, seed);
    }

    public LoadSettings withReads(boolean onlyReads) {
        return new LoadSettings(url, onlyReads ? "GET" : method, bodySize, connections, threads, warmup, duration, drain, timeout,
                rate, saturate, resources, prefix, pattern, share, onlyReads, tokenBase, seed);
    }

    public LoadSettings withPattern(TokenPattern tokens) {
        return new LoadSettings(url, method, bodySize, connections, threads, warmup, duration, drain, timeout,
                rate, saturate, resources, prefix, tokens, share, reads, tokenBase, seed);
    }

    public LoadSettings withLoad(int bodyBytes, int conns, int resourceCount) {
        return new LoadSettings(url, method, bodyBytes, conns, Math.min(threads, conns), warmup, duration, drain,
                timeout, rate, saturate, resourceCount, prefix, pattern, share, reads, tokenBase, seed);
    }

    int port() {
        return url.getPort() > 0 ? url.getPort() : 80;
    }

    private static void require(boolean ok, String name, Object value, String expected) {
        if (!ok) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: " + expected + ")");
        }
    }
}
