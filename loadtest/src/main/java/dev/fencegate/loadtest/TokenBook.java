package dev.fencegate.loadtest;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The current token of every resource. Atomic because a hot resource is written from every
 * event loop; elsewhere each resource has a single writer.
 */
final class TokenBook {
    private final AtomicLongArray current;
    private final String[] paths;

    TokenBook(String prefix, int resources, long base) {
        if (base < 1) {
            throw new IllegalArgumentException("token base: " + base + " (expected: >= 1, so a stale token stays >= 0)");
        }
        current = new AtomicLongArray(resources);
        paths = new String[resources];
        String stem = prefix.endsWith("/") ? prefix : prefix + "/";
        for (int i = 0; i < resources; i++) {
            current.set(i, base);
            paths[i] = stem + "r" + i;
        }
    }

    /**
     * A base above anything an earlier run on the same resources can have reached: the fence
     * rows outlive a run, and a token below the stored one would be refused as stale.
     */
    static long baseFromClock() {
        return System.currentTimeMillis() * 1_000;
    }

    int resources() {
        return paths.length;
    }

    String path(int resource) {
        return paths[resource];
    }

    long current(int resource) {
        return current.get(resource);
    }

    long bump(int resource) {
        return current.incrementAndGet(resource);
    }
}
