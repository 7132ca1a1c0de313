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

    public void admitted(FenceClaim claim) {
        raisedTo(claim.resource(), claim.token().value());
    }

    /**
     * Another instance announced it raised the fence of {@code resource} to {@code token}: it
     * announces only after the raise committed without a warning, so that too is durable. A writer
     * below it is then refused here without a registration, which would hold the raise back.
     */
    public synchronized void raisedTo(ResourceKey resource, long token) {
        highest.merge(resource, token, Math::max);
    }

    public synchronized int size() {
        return highest.size();
    }
}
