package dev.fencegate.fence;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The writes this instance has let toward the store and not yet seen finish, by resource and
 * token. A claim is entered before the fence is read, so that a later raise on this instance
 * always sees it. Callers synchronise on {@link #lock()} to combine it with their own state.
 */
public final class LocalInflight {

    private final Object lock = new Object();
    private final Map<ResourceKey, TreeMap<Long, Integer>> tokens = new HashMap<>();
    private final Map<ResourceKey, Long> emptySince = new HashMap<>();

    public Object lock() {
        return lock;
    }

    public void enter(FenceClaim claim) {
        synchronized (lock) {
            tokens.computeIfAbsent(claim.resource(), r -> new TreeMap<>()).merge(claim.token().value(), 1, Integer::sum);
            emptySince.remove(claim.resource());
        }
    }

    public void exit(FenceClaim claim) {
        synchronized (lock) {
            TreeMap<Long, Integer> set = tokens.get(claim.resource());
            if (set == null) {
                return;
            }
            set.computeIfPresent(claim.token().value(), (token, count) -> count == 1 ? null : count - 1);
            if (set.isEmpty()) {
                tokens.remove(claim.resource());
                emptySince.put(claim.resource(), System.nanoTime());
            }
        }
    }

    /** Whether a write with a lower token than {@code claim}'s is entered on this instance. */
    public boolean hasLowerThan(FenceClaim claim) {
        synchronized (lock) {
            TreeMap<Long, Integer> set = tokens.get(claim.resource());
            return set != null && set.firstKey() < claim.token().value();
        }
    }

    /** The lowest token entered for {@code resource}, if any. */
    public OptionalLong lowest(ResourceKey resource) {
        synchronized (lock) {
            TreeMap<Long, Integer> set = tokens.get(resource);
            return set == null ? OptionalLong.empty() : OptionalLong.of(set.firstKey());
        }
    }

    /** Whether nothing has been entered for {@code resource} for at least {@code nanos}. */
    public boolean idleFor(ResourceKey resource, long nanos) {
        synchronized (lock) {
            if (tokens.containsKey(resource)) {
                return false;
            }
            Long since = emptySince.get(resource);
            return since == null || System.nanoTime() - since >= nanos;
        }
    }

    /** Whether no write of this instance may still be on its way to the store. */
    public boolean isEmpty() {
        synchronized (lock) {
            return tokens.isEmpty();
        }
    }

    /** Forgets when an idle resource went idle, once nothing refers to it any more. */
    public void forget(ResourceKey resource) {
        synchronized (lock) {
            if (!tokens.containsKey(resource)) {
                emptySince.remove(resource);
            }
        }
    }
}
