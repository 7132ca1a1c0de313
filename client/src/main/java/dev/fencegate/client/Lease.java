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
        if (name.isEmpty()) {
            throw new IllegalArgumentException("lease name: must not be empty");
        }
        checkHolder(holder);
        if (token < 1) {
            throw new IllegalArgumentException("token: " + token + " (expected at least 1)");
        }
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(MAX_TTL) > 0) {
            throw new IllegalArgumentException("ttl: " + ttl + " (expected a positive duration of at most " + MAX_TTL.toDays()
                    + " days)");
        }
        if (ttl.getNano() % 1_000_000 != 0) {
            // The store counts a grant's time in milliseconds: a part below one would be dropped there
            // and kept here, so the holder would count the grant as held after the store let it go.
            throw new IllegalArgumentException("ttl: " + ttl + " (expected whole milliseconds)");
        }
    }

    /**
     * The longest ttl: a guard counts a lease's time in nanoseconds of a {@code long}, which a ttl
     * of some 292 years overflows, after the grant would have been made; refused before it.
     */
    public static final Duration MAX_TTL = Duration.ofDays(36_500);

    private static final int MAX_HOLDER_LENGTH = 200;

    /**
     * Refuses a holder that the {@code Fencing-Holder} header cannot carry as given (1 to 200 visible
     * ASCII characters): every write would be refused, so it is refused before the grant, which
     * would otherwise keep the lease from everyone else until its ttl ran out.
     */
    static void checkHolder(String holder) {
        Objects.requireNonNull(holder, "holder");
        if (holder.isEmpty() || holder.length() > MAX_HOLDER_LENGTH || !holder.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException("holder: " + holder + " (expected 1 to " + MAX_HOLDER_LENGTH
                    + " visible ASCII characters, as the Fencing-Holder header allows)");
        }
    }
}
