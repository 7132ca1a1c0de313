package dev.fencegate.loadtest;

import java.util.Optional;

/**
 * One connection carrying one request at a time. A lane reports back to its {@link Shard}:
 * every {@link #send} ends in exactly one of answered, failed or timed out, and the lane calls
 * {@link Shard#laneReady} whenever it can take the next request.
 */
interface Lane {

    void send(long intendedNanos);

    /** Stops the lane for good and hands back the exchange still waiting for an answer. */
    Optional<Exchange> stop();
}
