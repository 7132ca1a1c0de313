package dev.fencegate.fence;

import java.util.Optional;

/** What a write asserts: "I hold token {@code token} for {@code resource}". */
public record FenceClaim(ResourceKey resource, FencingToken token, Optional<Holder> holder) {
}
