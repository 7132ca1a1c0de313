package dev.fencegate.fence;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The highest token this instance admitted per resource, for the most recently used resources.
 * Every remembered token was durably recorded before it was admitted, so the fence store can
 * never rightly hold less: if it does, it lost rows, and this memory keeps the fence up.
 */
public final class RememberedFences {

    /** A map entry's own cost beside its key's characters: entry, key and string objects, the token. */
    static final int ENTRY_BYTES = 120;

    private final LinkedHashMap<ResourceKey, Long> highest = new LinkedHashMap<>(1024, 0.75f, true);
    private final int capacity;
    private final long byteBudget;
    private long bytes;

    /**
     * @param capacity   the most resources remembered
     * @param byteBudget the most heap they may take, counting a key's characters as bytes and
     *                   {@link #ENTRY_BYTES} more for each: keys run to thousands of characters, so a
     *                   count alone would let one writer of long new keys fill the heap
     */
    public RememberedFences(int capacity, long byteBudget) {
        this.capacity = capacity;
        this.byteBudget = byteBudget;
    }

    /** At most {@code capacity} resources, in at most {@link #defaultByteBudget()}. */
    public RememberedFences(int capacity) {
        this(capacity, defaultByteBudget());
    }

    /** An eighth of the heap this process may use. */
    public static long defaultByteBudget() {
        return Runtime.getRuntime().maxMemory() / 8;
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
        Long before = highest.get(resource);
        if (before != null) {
            highest.put(resource, Math.max(before, token));
            return;
        }
        highest.put(resource, token);
        bytes += cost(resource);
        Iterator<Map.Entry<ResourceKey, Long>> eldest = highest.entrySet().iterator();
        while ((highest.size() > capacity || bytes > byteBudget) && highest.size() > 1) {
            bytes -= cost(eldest.next().getKey());
            eldest.remove();
        }
    }

    /**
     * A refusal read the fence of {@code resource} at {@code token}: kept where this instance
     * already remembers the resource, so its next refusal from memory names it. Adds no resource:
     * a flood of stale writes to others must not push out the ones this instance admitted.
     */
    public synchronized void readAt(ResourceKey resource, long token) {
        Long before = highest.get(resource);
        if (before != null && token > before) {
            highest.put(resource, token);
        }
    }

    private static long cost(ResourceKey resource) {
        return resource.value().length() + (long) ENTRY_BYTES;
    }

    public synchronized int size() {
        return highest.size();
    }
}
