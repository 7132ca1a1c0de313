package dev.fencegate.fence;

import java.util.Optional;
import java.util.function.Function;

/**
 * How an instance names the resources it fences, as far as the fence store must know it: as text
 * recorded beside the fences, whether fences recorded under another naming can be carried to this
 * one, and where each of them moves.
 */
public interface ResourceNaming {

    /** This naming as it is recorded beside the fences. */
    String text();

    /** Why fences recorded under the naming recorded as {@code recorded} cannot be carried to this one, or empty. */
    Optional<String> whyNotCarriedFrom(String recorded);

    /** For each key recorded under a naming that can be carried, the key its fence moves up to here, or empty when it stays. */
    Function<ResourceKey, Optional<ResourceKey>> carrier();
}
