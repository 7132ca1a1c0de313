package dev.fencegate.loadtest.compare;

import java.time.Duration;

/** Warm-up and measured time of one kind of run. */
record Phases(Duration warmup, Duration measured) {

    static Phases ofSeconds(double warmup, double measured) {
        return new Phases(Duration.ofMillis(Math.round(warmup * 1000)), Duration.ofMillis(Math.round(measured * 1000)));
    }

    Duration total() {
        return warmup.plus(measured);
    }
}
