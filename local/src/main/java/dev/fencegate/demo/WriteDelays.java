package dev.fencegate.demo;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Draws how long the store holds each write before applying it. */
@FunctionalInterface
interface WriteDelays {

    long nextNanos();

    static WriteDelays uniform(Duration min, Duration max) {
        long low = min.toNanos();
        long high = max.toNanos();
        if (low == high) {
            return () -> low;
        }
        return () -> ThreadLocalRandom.current().nextLong(low, high + 1);
    }
}
