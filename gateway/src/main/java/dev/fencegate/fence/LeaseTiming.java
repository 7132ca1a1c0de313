package dev.fencegate.fence;

import java.time.Duration;

/**
 * How long registration rows last and when they are renewed.
 *
 * @param storeApply  how long the store may still take to apply a request after its last byte
 *                    (the upstream timeout): a write is sent no later than this before its row can lapse
 * @param headroom    how long a row outlives the latest moment a write under it may be sent; the
 *                    sweep renews rows still written under well before it runs out
 * @param idleRelease how long a resource stays registered after its last local write finished
 */
public record LeaseTiming(Duration storeApply, Duration headroom, Duration idleRelease) {

    /** How long a written row lives: after an instance dies, higher tokens wait at most this (and the listener grace). */
    public Duration rowLength() {
        return storeApply.plus(headroom);
    }

    long storeApplyNanos() {
        return storeApply.toNanos();
    }

    long rowNanos() {
        return rowLength().toNanos();
    }

    /** Less send time than this left: a write does not start under the row but renews it first. */
    long minSendNanos() {
        return headroom.toNanos() / 6;
    }

    /** The sweep renews a row still written under once less than this send time is left. */
    long renewBelowNanos() {
        return headroom.toNanos() * 2 / 3;
    }

    long idleReleaseNanos() {
        return idleRelease.toNanos();
    }
}
