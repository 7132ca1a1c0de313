package dev.fencegate.fence;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * Judges several claims together, in order, as {@link #admit} would one by one; a claim that
     * alone could not be judged gets {@link FenceDecision.Unavailable}.
     *
     * @throws FenceStoreUnavailableException when none of them could be judged
     */
    default List<FenceDecision> admitAll(List<FenceClaim> claims) {
        List<FenceDecision> decisions = new ArrayList<>(claims.size());
        for (FenceClaim claim : claims) {
            decisions.add(admit(claim));
        }
        return decisions;
    }

    /**
     * As {@link #admitAll(List)}, for claims that first need {@code registration}: no fence of a
     * claim it registers may be read before the rows are committed and visible to every instance.
     * A store that can, writes the rows in the same commit as the batch's raises; this one writes
     * them in a commit of their own first.
     *
     * @throws FenceStoreUnavailableException when the rows could not be confirmed, or none of the claims judged
     */
    default List<FenceDecision> admitAll(List<FenceClaim> claims, BatchRegistration registration) {
        registration.writeAlone();
        return admitAll(claims);
    }

    /**
     * Removes other instances' registrations of {@code resource} that expired without being
     * withdrawn, once a raise has given those instances time to hear of it; the claim is then
     * judged again, so a store that judges claims as waiting on expired holders must remove them
     * here, or such claims wait until they time out. Nothing to do for a store that keeps no
     * registrations.
     */
    default void forgetExpiredRegistrations(ResourceKey resource) {
    }

    /** The fence recorded for a resource, if any. */
    Optional<Fence> read(ResourceKey resource);

    /**
     * The fences recorded for these resources, as one look where the store can; a resource with
     * none is absent from the map.
     *
     * @throws FenceStoreUnavailableException when the store cannot answer
     */
    default Map<ResourceKey, Fence> readAll(Collection<ResourceKey> resources) {
        Map<ResourceKey, Fence> fences = new HashMap<>();
        for (ResourceKey resource : resources) {
            read(resource).ifPresent(fence -> fences.put(resource, fence));
        }
        return fences;
    }
}
