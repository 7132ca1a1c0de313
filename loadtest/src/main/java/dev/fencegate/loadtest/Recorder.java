package dev.fencegate.loadtest;

import org.HdrHistogram.Histogram;

/**
 * Latency and outcome counts of the requests whose intended time falls in the measured window.
 * Latency runs from the intended time, so time a request spent waiting for a free connection
 * counts: this is the coordinated-omission correction of an open-loop run.
 */
final class Recorder {
    private final long measureFromNanos;
    private final long measureUntilNanos;
    private final Histogram latencyMicros = new Histogram(3);
    private final Tally tally = new Tally();

    Recorder(long measureFromNanos, long measureUntilNanos) {
        this.measureFromNanos = measureFromNanos;
        this.measureUntilNanos = measureUntilNanos;
    }

    void answered(Exchange exchange, int status, long nowNanos) {
        if (!measured(exchange.intendedNanos())) {
            tally.warmupAnswered++;
            return;
        }
        record(exchange.intendedNanos(), nowNanos);
        tally.countAnswer(status, exchange.expectStale(), exchange.read());
    }

    void failed(Exchange exchange) {
        if (measured(exchange.intendedNanos())) {
            tally.transportErrors++;
        }
    }

    /** A timed-out or unfinished request is recorded at its age so far, a lower bound. */
    void timedOut(Exchange exchange, long nowNanos) {
        if (measured(exchange.intendedNanos())) {
            record(exchange.intendedNanos(), nowNanos);
            tally.timeouts++;
        }
    }

    void unfinished(long intendedNanos, long nowNanos) {
        if (measured(intendedNanos)) {
            record(intendedNanos, nowNanos);
            tally.unfinished++;
        }
    }

    Histogram latencyMicros() {
        return latencyMicros;
    }

    Tally tally() {
        return tally;
    }

    private boolean measured(long intendedNanos) {
        return intendedNanos >= measureFromNanos && intendedNanos < measureUntilNanos;
    }

    private void record(long intendedNanos, long nowNanos) {
        latencyMicros.recordValue(Math.max(0, (nowNanos - intendedNanos) / 1_000));
    }
}
