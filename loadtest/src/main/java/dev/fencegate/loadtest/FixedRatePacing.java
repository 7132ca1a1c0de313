package dev.fencegate.loadtest;

import java.util.stream.LongStream;

/**
 * Open-loop pacing. The backlog is implicit: every index below the clock's position that was
 * not yet taken is a request waiting for a free connection, and it keeps its intended time.
 */
final class FixedRatePacing implements Pacing {
    private final OpenLoopSchedule schedule;
    private final long endNanos;
    private long next;

    FixedRatePacing(OpenLoopSchedule schedule, long endNanos) {
        this.schedule = schedule;
        this.endNanos = endNanos;
    }

    @Override
    public boolean hasDue(long nowNanos) {
        long intended = schedule.intendedNanos(next);
        return intended <= nowNanos && intended < endNanos;
    }

    @Override
    public long take(long nowNanos) {
        if (!hasDue(nowNanos)) {
            throw new IllegalStateException("nothing due at " + nowNanos + "; next is index " + next);
        }
        return schedule.intendedNanos(next++);
    }

    @Override
    public long nextWakeNanos() {
        long intended = schedule.intendedNanos(next);
        return intended < endNanos ? intended : NEVER;
    }

    @Override
    public long[] overdue(long nowNanos) {
        long limit = Math.min(nowNanos, endNanos - 1);
        return LongStream.iterate(next, i -> i + 1)
                .map(schedule::intendedNanos)
                .takeWhile(intended -> intended <= limit)
                .toArray();
    }
}
