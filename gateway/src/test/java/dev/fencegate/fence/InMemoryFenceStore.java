package dev.fencegate.fence;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** The fence store in its simplest form: {@link FencePolicy} over a map, one caller at a time. */
public final class InMemoryFenceStore implements FenceStore {

    private final Map<ResourceKey, Fence> fences = new HashMap<>();

    @Override
    public synchronized FenceDecision admit(FenceClaim claim) {
        FenceDecision decision = FencePolicy.decide(Optional.ofNullable(fences.get(claim.resource())), claim);
        if (decision instanceof FenceDecision.Admitted admitted
                && (admitted.raised() || fences.get(claim.resource()).holder().isEmpty() && claim.holder().isPresent())) {
            // A raise records its holder; so does the first named claim at an unnamed fence's token.
            fences.put(claim.resource(), new Fence(claim.resource(), claim.token(), claim.holder()));
        }
        return decision;
    }

    @Override
    public synchronized Optional<Fence> read(ResourceKey resource) {
        return Optional.ofNullable(fences.get(resource));
    }
}
