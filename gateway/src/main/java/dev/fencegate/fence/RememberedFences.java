package dev.fencegate.fence;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.OptionalLong;

/**
 * Per resource, for the most recently used resources: the highest token this instance confirmed
 * (admitted a write at, raised for an operator, or read as the fence through its own connection),
 * and the highest it knows of, which also counts raises it heard another instance announce.
 *
 * <p>A confirmed token was durably in the fence store, seen through this instance's own
 * connection, so the store can never rightly hold less: if it does, it lost rows, and this memory
 * puts the fence back up. A token it only heard of proves nothing of the kind: any role that may
 * connect can send a notice, and a notice can arrive while a read that started before its raise
 * committed is still on its way back. It keeps lower writers out from memory, and is never written
 * back to the store.
 *
 * <p>Raises heard of for resources this instance does not remember are kept apart, in a quarter
 * of the count and of the bytes, and push out only each other: a flood of notices for other
 * resources (any role that may connect can send them, a hundred thousand in one statement) must
 * not push out the tokens this instance confirmed, which the regression guard needs.
 */
public final class RememberedFences {

    /** A map entry's own cost beside its key's characters: entry, key and string objects, the tokens. */
    static final int ENTRY_BYTES = 128;

    private static final long NONE = Long.MIN_VALUE;

    /** The two highest tokens of one resource; NONE where there is none. */
    private static final class Tokens {
        long confirmed = NONE;
        long known = NONE;
    }

    private final LinkedHashMap<ResourceKey, Tokens> tokens = new LinkedHashMap<>(1024, 0.75f, true);
    private final int capacity;
    private final long byteBudget;
    private long bytes;
    /** Raises heard of for resources not in {@link #tokens}: the highest token heard, per resource. */
    private final LinkedHashMap<ResourceKey, Long> heardOnly = new LinkedHashMap<>(256, 0.75f, true);
    private final int heardCapacity;
    private final long heardByteBudget;
    private long heardBytes;

    /**
     * @param capacity   the most resources remembered
     * @param byteBudget the most heap they may take, counting a key's characters as bytes and
     *                   {@link #ENTRY_BYTES} more for each: keys run to thousands of characters, so a
     *                   count alone would let one writer of long new keys fill the heap
     */
    public RememberedFences(int capacity, long byteBudget) {
        this.capacity = capacity;
        this.byteBudget = byteBudget;
        this.heardCapacity = Math.max(1, capacity / 4);
        this.heardByteBudget = byteBudget / 4;
    }

    /** At most {@code capacity} resources, in at most {@link #defaultByteBudget()}. */
    public RememberedFences(int capacity) {
        this(capacity, defaultByteBudget());
    }

    /** An eighth of the heap this process may use. */
    public static long defaultByteBudget() {
        return Runtime.getRuntime().maxMemory() / 8;
    }

    /** The highest token this instance knows the fence of {@code resource} reached, however it learnt it: writers below it are stale. */
    public synchronized OptionalLong highest(ResourceKey resource) {
        Tokens known = tokens.get(resource);
        if (known != null && known.known != NONE) {
            return OptionalLong.of(known.known);
        }
        Long heard = heardOnly.get(resource);
        return heard == null ? OptionalLong.empty() : OptionalLong.of(heard);
    }

    /** The highest fence of {@code resource} this instance confirmed through its own connection: the store holding less lost it. */
    public synchronized OptionalLong confirmed(ResourceKey resource) {
        Tokens known = tokens.get(resource);
        return known == null || known.confirmed == NONE ? OptionalLong.empty() : OptionalLong.of(known.confirmed);
    }

    public void admitted(FenceClaim claim) {
        raisedHere(claim.resource(), claim.token().value());
    }

    /** This instance raised the fence of {@code resource} to {@code token} (for an operator, or the regression guard), and it committed. */
    public synchronized void raisedHere(ResourceKey resource, long token) {
        Tokens entry = entry(resource);
        entry.confirmed = Math.max(entry.confirmed, token);
        entry.known = Math.max(entry.known, token);
    }

    /**
     * A notice said the fence of {@code resource} was raised to {@code token}. A writer below it is
     * then refused here without a registration, which would hold the raise back.
     */
    public synchronized void heardOf(ResourceKey resource, long token) {
        Tokens entry = tokens.get(resource);
        if (entry != null) {
            entry.known = Math.max(entry.known, token);
            return;
        }
        Long before = heardOnly.get(resource);
        heardOnly.put(resource, before == null ? token : Math.max(before, token));
        if (before == null) {
            heardBytes = fit(heardOnly, resource, heardBytes + cost(resource), heardCapacity, heardByteBudget);
        }
    }

    /**
     * A refusal read the fence of {@code resource} at {@code token} through this instance's own
     * connection: kept where this instance already remembers the resource, so its next refusal
     * from memory names it, and a store found below it later lost it. Adds no resource: a flood
     * of stale writes to others must not push out the ones this instance admitted.
     */
    public synchronized void readAt(ResourceKey resource, long token) {
        Tokens entry = tokens.get(resource);
        if (entry != null) {
            entry.confirmed = Math.max(entry.confirmed, token);
            entry.known = Math.max(entry.known, token);
        }
    }

    public synchronized int size() {
        return tokens.size();
    }

    /** The resource's entry; a new one takes over what was heard of the resource. */
    private Tokens entry(ResourceKey resource) {
        Tokens entry = tokens.get(resource);
        if (entry != null) {
            return entry;
        }
        entry = new Tokens();
        Long heard = heardOnly.remove(resource);
        if (heard != null) {
            heardBytes -= cost(resource);
            entry.known = heard;
        }
        tokens.put(resource, entry);
        bytes = fit(tokens, resource, bytes + cost(resource), capacity, byteBudget);
        return entry;
    }

    /**
     * Forgets the least recently used resources of {@code memory}, never {@code added}, until it
     * holds at most {@code capacity} in at most {@code budget}; returns the bytes it then takes.
     */
    private static long fit(LinkedHashMap<ResourceKey, ?> memory, ResourceKey added, long bytes, int capacity, long budget) {
        Iterator<ResourceKey> eldest = memory.keySet().iterator();
        while ((memory.size() > capacity || bytes > budget) && memory.size() > 1) {
            ResourceKey gone = eldest.next();
            if (gone.equals(added)) {
                break;
            }
            bytes -= cost(gone);
            eldest.remove();
        }
        return bytes;
    }

    private static long cost(ResourceKey resource) {
        return resource.value().length() + (long) ENTRY_BYTES;
    }
}
