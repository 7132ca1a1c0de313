package dev.fencegate.client;

import java.time.Duration;
import java.util.Objects;

/**
 * One grant of a lease: {@code token} is above every earlier grant's for {@code name}, and stays
 * the same while the holder renews. {@code ttl} is how long the grant (or its last renewal) runs,
 * by the lease store's clock, from the moment the store handled the request.
 */
public record Lease(String name, String holder, long token, Duration ttl) {

    public Lease {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(ttl, "ttl");
        if (name.isEmpty() || holder.isEmpty()) {
            throw new IllegalArgumentException("lease name and holder: must not be empty");
        }
        if (token < 1) {
            throw new IllegalArgumentException("token: " + token + " (expected at least 1)");
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl: " + ttl + " (expected a positive duration)");
        }
    }
}
