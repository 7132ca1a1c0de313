package dev.fencegate.loadtest;

/** One request on its way: when it was meant to go, and whether a 412 is the expected answer. */
record Exchange(long intendedNanos, boolean expectStale) {
}
