package dev.fencegate.fence;

import java.util.HashMap;
import java.util.Map;

/**
 * The fences this instance holds, per resource: a slot is made before a covered claim's fence is
 * read, and the read fills it if the slot is still there when its answer is settled. Dropping a
 * slot also voids every fence read still under way for it. Not thread-safe: only
 * {@link InstanceFences} uses it, under its lock.
 */
final class HeldFences {

    private final Map<ResourceKey, Slot> slots = new HashMap<>();

    /** Where the fence of a resource is held once read; empty until then. */
    static final class Slot {
        private HeldFence fence;
    }

    /** Whether {@code claim} is at the fence held for its resource. */
    boolean admits(FenceClaim claim) {
        Slot slot = slots.get(claim.resource());
        return slot != null && slot.fence != null && slot.fence.admits(claim);
    }

    /** The slot of {@code resource}, made if there is none. */
    Slot slot(ResourceKey resource) {
        return slots.computeIfAbsent(resource, r -> new Slot());
    }

    /**
     * A claim admitted by a read under {@code slot}: held at its token if the slot is still the
     * resource's, the claim's holder joining the fence held at the same token.
     */
    void admitted(FenceClaim claim, Slot slot) {
        if (slot != null && slots.get(claim.resource()) == slot) {
            slot.fence = slot.fence == null || slot.fence.token() < claim.token().value() ? HeldFence.of(claim) : slot.fence.and(claim);
        }
    }

    /**
     * A refusal read the fence at {@code read}: a value held here below it was raised without this
     * instance hearing of it yet, so that hold ends, and so does a hold whose read is still under
     * way, whose value is not known yet. A hold at the fence read stays: anyone may send a stale or
     * reused token, and it must not cost the holder its hold.
     */
    void dropBelow(ResourceKey resource, long read) {
        Slot slot = slots.get(resource);
        if (slot != null && (slot.fence == null || slot.fence.token() < read)) {
            slots.remove(resource);
        }
    }

    void drop(ResourceKey resource) {
        slots.remove(resource);
    }

    void dropAll() {
        slots.clear();
    }

    int size() {
        return slots.size();
    }
}
