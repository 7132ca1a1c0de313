package dev.fencegate.fence;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * The writes this instance has let toward the store and not yet seen finish, by resource and
 * token, and when each resource went idle. Not thread-safe: {@link InstanceFences} owns it and
 * calls it under its lock.
 */
final class InflightTokens {

    private final Map<ResourceKey, TreeMap<Long, Integer>> tokens = new HashMap<>();
    private final Map<ResourceKey, Long> emptySince = new HashMap<>();

    void enter(FenceClaim claim) {
        tokens.computeIfAbsent(claim.resource(), r -> new TreeMap<>()).merge(claim.token().value(), 1, Integer::sum);
        emptySince.remove(claim.resource());
    }

    void exit(FenceClaim claim, long nowNanos) {
        TreeMap<Long, Integer> set = tokens.get(claim.resource());
        if (set == null) {
            return;
        }
        set.computeIfPresent(claim.token().value(), (token, count) -> count == 1 ? null : count - 1);
        if (set.isEmpty()) {
            tokens.remove(claim.resource());
            emptySince.put(claim.resource(), nowNanos);
        }
    }

    /** Whether a write with a lower token than {@code claim}'s is entered. */
    boolean hasLowerThan(FenceClaim claim) {
        TreeMap<Long, Integer> set = tokens.get(claim.resource());
        return set != null && set.firstKey() < claim.token().value();
    }

    OptionalLong lowest(ResourceKey resource) {
        TreeMap<Long, Integer> set = tokens.get(resource);
        return set == null ? OptionalLong.empty() : OptionalLong.of(set.firstKey());
    }

    /** Whether nothing has been entered for {@code resource} for at least {@code nanos}. */
    boolean idleFor(ResourceKey resource, long nanos, long nowNanos) {
        if (tokens.containsKey(resource)) {
            return false;
        }
        Long since = emptySince.get(resource);
        return since == null || nowNanos - since >= nanos;
    }

    boolean isEmpty() {
        return tokens.isEmpty();
    }

    /** Forgets when each idle resource went idle, but for those {@code kept} names. */
    void forgetIdleExcept(Set<ResourceKey> kept) {
        emptySince.keySet().retainAll(kept);
    }

    /** How many resources this remembers: with writes in flight, or when they went idle. */
    int resources() {
        return tokens.size() + emptySince.size();
    }

    /** Forgets when an idle resource went idle, once nothing refers to it any more. */
    void forget(ResourceKey resource) {
        if (!tokens.containsKey(resource)) {
            emptySince.remove(resource);
        }
    }
}
