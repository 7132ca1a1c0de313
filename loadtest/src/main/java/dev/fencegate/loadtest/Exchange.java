package dev.fencegate.loadtest;

/**
 * One request on its way: when it was meant to go, whether a 412 is the expected answer, and
 * whether it is a read, for which a 404 (nothing written there yet) is the store's answer passed on.
 */
record Exchange(long intendedNanos, boolean expectStale, boolean read) {

    Exchange(long intendedNanos, boolean expectStale) {
        this(intendedNanos, expectStale, false);
    }
}
