package dev.fencegate.loadtest;

/** Closed-loop pacing: a free connection sends at once, so latency counts from the send. */
final class SaturationPacing implements Pacing {
    private final long endNanos;

    SaturationPacing(long endNanos) {
        this.endNanos = endNanos;
    }

    @Override
    public boolean hasDue(long nowNanos) {
        return nowNanos < endNanos;
    }

    @Override
    public long take(long nowNanos) {
        return nowNanos;
    }

    @Override
    public long nextWakeNanos() {
        return NEVER;
    }

    @Override
    public long[] overdue(long nowNanos) {
        return new long[0];
    }
}
