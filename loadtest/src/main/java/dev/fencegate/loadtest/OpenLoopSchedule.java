package dev.fencegate.loadtest;

/**
 * Intended send times of a fixed-rate run. Shard {@code shard} of {@code shards} owns every
 * {@code shards}-th slot of the overall schedule, so the shards together send at {@code rate}.
 * Times are computed from the index, never accumulated, so they do not drift.
 */
record OpenLoopSchedule(long startNanos, double ratePerSecond, int shard, int shards) {

    OpenLoopSchedule {
        if (!(ratePerSecond > 0)) {
            throw new IllegalArgumentException("rate: " + ratePerSecond + " (expected: > 0)");
        }
        if (shards < 1 || shard < 0 || shard >= shards) {
            throw new IllegalArgumentException("shard: " + shard + " of " + shards);
        }
    }

    static OpenLoopSchedule single(long startNanos, double ratePerSecond) {
        return new OpenLoopSchedule(startNanos, ratePerSecond, 0, 1);
    }

    /** Intended send time of this shard's {@code index}-th request. */
    long intendedNanos(long index) {
        long slot = index * shards + shard;
        return startNanos + Math.round(slot * 1e9 / ratePerSecond);
    }
}
