package dev.fencegate.fence;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The highest token this instance admitted per resource, for the most recently used resources.
 * Every remembered token was durably recorded before it was admitted, so the fence store can
 * never rightly hold less: if it does, it lost rows, and this memory keeps the fence up.
 */
public final class RememberedFences {

    private final Map<ResourceKey, Long> highest;

    public RememberedFences(int capacity) {
        this.highest = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<ResourceKey, Long> eldest) {
                return size() > capacity;
            }
        };
    }

    public synchronized OptionalLong highest(ResourceKey resource) {
        Long token = highest.get(resource);
        return token == null ? OptionalLong.empty() : OptionalLong.of(token);
    }

    public synchronized void admitted(FenceClaim claim) {
        highest.merge(claim.resource(), claim.token().value(), Math::max);
    }

    public synchronized int size() {
        return highest.size();
    }
}
