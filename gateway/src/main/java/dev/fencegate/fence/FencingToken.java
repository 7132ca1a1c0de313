package dev.fencegate.fence;

/** A fencing token: a grant number that only goes up. Always at least 1. */
public record FencingToken(long value) implements Comparable<FencingToken> {

    public static final FencingToken MAX = new FencingToken(Long.MAX_VALUE);

    public FencingToken {
        if (value < 1) {
            throw new IllegalArgumentException("fencing token must be at least 1, got " + value);
        }
    }

    public boolean isBelow(FencingToken other) {
        return value < other.value;
    }

    @Override
    public int compareTo(FencingToken other) {
        return Long.compare(value, other.value);
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}
