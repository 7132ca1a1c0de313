package dev.fencegate.fence;

/** The canonical name of the thing a write changes; one fence row per key. */
public record ResourceKey(String value) {

    public ResourceKey {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("resource key must not be empty");
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
