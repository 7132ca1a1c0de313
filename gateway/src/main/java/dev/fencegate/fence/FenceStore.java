package dev.fencegate.fence;

import java.util.Optional;

/**
 * Where fences are kept. Calls block; callers run them off the event loops. Implementations
 * apply {@link FencePolicy} atomically: a fence is never lowered and never removed.
 */
public interface FenceStore {

    /**
     * Judges the claim and, when admitted, records its token (and holder, when the token goes
     * up) durably before returning.
     *
     * @throws FenceStoreUnavailableException when the store cannot answer; the write must be refused
     */
    FenceDecision admit(FenceClaim claim);

    /** The fence recorded for a resource, if any. */
    Optional<Fence> read(ResourceKey resource);
}
