package dev.fencegate.loadtest;

/** The clock and timer of the one thread a shard runs on; tests drive it by hand. */
interface LoopClock {

    long nanoTime();

    void runAt(long nanos, Runnable task);
}
