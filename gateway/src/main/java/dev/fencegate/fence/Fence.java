package dev.fencegate.fence;

import java.util.Optional;

/** The highest token recorded for a resource, and the holder it was granted to if known. */
public record Fence(ResourceKey resource, FencingToken token, Optional<Holder> holder) {
}
