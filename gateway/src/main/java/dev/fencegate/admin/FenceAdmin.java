package dev.fencegate.admin;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceAdmission;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Supplier;

/** What an operator may do to fences: look, and raise. There is no lowering and no removing. */
public interface FenceAdmin {

    /** @throws dev.fencegate.fence.FenceStoreUnavailableException when the store cannot answer */
    Optional<Fence> read(ResourceKey resource);

    /**
     * Raises the fence to {@code token}, or leaves it where it is when it is already that high;
     * {@link FenceDecision.Stale} when it is higher. Blocks; never call it on an event loop.
     *
     * @throws dev.fencegate.fence.FenceStoreUnavailableException when the store cannot answer
     */
    FenceDecision raise(ResourceKey resource, FencingToken token);

    /**
     * Whether a write this instance admitted below {@code token} may still reach the store: sent,
     * or being sent, and not answered yet. The store's answer to a raise counts only the other
     * instances' writes; this instance's own are known here.
     */
    default boolean writesBelowInFlight(ResourceKey resource, FencingToken token) {
        return false;
    }

    /**
     * Why this instance cannot tell now which fence a write is checked against (its naming is not
     * the one the fence database records), or empty: a key it judges may then not be one any write is
     * checked against, and a fence read under it says nothing of the objects.
     */
    default Optional<String> namingRefusal() {
        return Optional.empty();
    }

    /**
     * Why this instance asks the fence database nothing more (it went back behind a commit this
     * instance saw confirmed), or empty: a fence read there may be one that was lost.
     */
    default Optional<String> databaseRefusal() {
        return Optional.empty();
    }

    /**
     * Through the instance's own admission: a claim without a holder is admitted exactly when it
     * is at or above the fence, so "raise, never lower" is the rule every write already obeys; and
     * like every raise, it ends this instance's hold of the old fence and is announced to the others
     * registered below it.
     */
    static FenceAdmin over(FenceStore store, FenceAdmission admission, Supplier<Optional<String>> namingRefusal) {
        return over(store, admission, namingRefusal, Optional::empty);
    }

    /** As {@link #over(FenceStore, FenceAdmission, Supplier)}, with the database refused as {@code databaseRefusal} says. */
    static FenceAdmin over(FenceStore store, FenceAdmission admission, Supplier<Optional<String>> namingRefusal,
                           Supplier<Optional<String>> databaseRefusal) {
        return over(store, admission::raise, admission::writesBelowInFlight, namingRefusal, databaseRefusal);
    }

    /** Straight to the store: only for a store no gateway admits writes from in this process. */
    static FenceAdmin over(FenceStore store) {
        return over(store, (resource, token) -> store.admit(new FenceClaim(resource, token, Optional.empty())),
                (resource, token) -> false, Optional::empty, Optional::empty);
    }

    private static FenceAdmin over(FenceStore store, BiFunction<ResourceKey, FencingToken, FenceDecision> raise,
                                   BiPredicate<ResourceKey, FencingToken> writesBelowInFlight,
                                   Supplier<Optional<String>> namingRefusal, Supplier<Optional<String>> databaseRefusal) {
        return new FenceAdmin() {
            @Override
            public Optional<String> namingRefusal() {
                return namingRefusal.get();
            }

            @Override
            public Optional<String> databaseRefusal() {
                return databaseRefusal.get();
            }

            @Override
            public Optional<Fence> read(ResourceKey resource) {
                return store.read(resource);
            }

            @Override
            public FenceDecision raise(ResourceKey resource, FencingToken token) {
                return raise.apply(resource, token);
            }

            @Override
            public boolean writesBelowInFlight(ResourceKey resource, FencingToken token) {
                return writesBelowInFlight.test(resource, token);
            }
        };
    }
}
