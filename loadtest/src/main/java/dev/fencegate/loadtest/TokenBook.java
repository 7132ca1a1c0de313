package dev.fencegate.loadtest;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The current token of every resource, and the names of new objects. Atomic because a hot
 * resource is written from every event loop; elsewhere each resource has a single writer. A
 * comparison keeps one book per target across its runs, so raised tokens carry on from run to
 * run and no new object is named twice.
 */
public final class TokenBook {
    private final AtomicLongArray current;
    private final String[] paths;
    private final String prefix;
    private final long base;
    private final String newObjectName;
    private final String newObjectStem;
    private final AtomicLong newObjects = new AtomicLong();

    public TokenBook(String prefix, int resources, long base) {
        if (base < 1) {
            throw new IllegalArgumentException("token base: " + base + " (expected: >= 1, so a stale token stays >= 0)");
        }
        this.prefix = prefix;
        this.base = base;
        current = new AtomicLongArray(resources);
        paths = new String[resources];
        String stem = prefix.endsWith("/") ? prefix : prefix + "/";
        for (int i = 0; i < resources; i++) {
            current.set(i, base);
            paths[i] = stem + "r" + i;
        }
        // Fence rows outlive a run: a name from an earlier book would not be a new object.
        newObjectName = "new-" + Long.toString(System.currentTimeMillis(), 36)
                + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 24), 36) + "-";
        newObjectStem = stem + newObjectName;
    }

    /** The book a run of these settings starts from. */
    public static TokenBook of(LoadSettings settings) {
        return new TokenBook(settings.prefix(), settings.resources(), settings.tokenBase());
    }

    /**
     * A base above anything an earlier run on the same resources can have reached: the fence
     * rows outlive a run, and a token below the stored one would be refused as stale.
     */
    static long baseFromClock() {
        return System.currentTimeMillis() * 1_000;
    }

    boolean fits(LoadSettings settings) {
        return settings.prefix().equals(prefix) && settings.resources() == paths.length;
    }

    int resources() {
        return paths.length;
    }

    long base() {
        return base;
    }

    String path(int resource) {
        return paths[resource];
    }

    /** A path no earlier call of any book has returned. */
    String newObjectPath() {
        return newObjectStem + newObjects.incrementAndGet();
    }

    /** A path below {@code resource}'s that no earlier call of any book has returned. */
    String newObjectPathUnder(int resource) {
        return paths[resource] + "/" + newObjectName + newObjects.incrementAndGet();
    }

    long current(int resource) {
        return current.get(resource);
    }

    long bump(int resource) {
        return current.incrementAndGet(resource);
    }
}
