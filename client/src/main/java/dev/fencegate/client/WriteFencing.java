package dev.fencegate.client;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The headers every write carries under a lease, and what a refusal does to the lease. A write
 * is never sent once the guard has tripped, and the first refusal trips it, so a fenced-out
 * worker stops at its first refused write.
 */
public final class WriteFencing {

    public static final String TOKEN = "Fencing-Token";
    public static final String HOLDER = "Fencing-Holder";
    public static final String SIGNATURE = "Fencing-Token-Signature";

    private static final Set<String> WRITES = Set.of("PUT", "POST", "PATCH", "DELETE");
    private static final int MAX_HOLDER_LENGTH = 200;

    private final LeaseGuard guard;
    private final String signature;

    private WriteFencing(LeaseGuard guard, String signature) {
        this.guard = Objects.requireNonNull(guard, "guard");
        this.signature = signature;
        String holder = guard.lease().holder();
        if (holder.length() > MAX_HOLDER_LENGTH || !holder.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException("holder: " + holder + " (expected 1 to " + MAX_HOLDER_LENGTH
                    + " visible ASCII characters, as the Fencing-Holder header allows)");
        }
    }

    /** Writes carrying the guarded lease's token and holder. */
    public static WriteFencing of(LeaseGuard guard) {
        return new WriteFencing(guard, null);
    }

    /** The same, with the issuer's signature of this token on the resource (see {@link TokenSigner}). */
    public WriteFencing signedWith(String signature) {
        return new WriteFencing(guard, Objects.requireNonNull(signature, "signature"));
    }

    public LeaseGuard guard() {
        return guard;
    }

    /** True for the methods the gateway fences: PUT, POST, PATCH and DELETE. */
    public static boolean isWrite(String method) {
        return WRITES.contains(method.toUpperCase(Locale.ROOT));
    }

    /** The fencing headers of one write; throws {@link LeaseLostException} instead once the lease is not held. */
    public Map<String, String> headersForWrite() {
        guard.checkHeld();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(TOKEN, Long.toString(guard.lease().token()));
        headers.put(HOLDER, guard.lease().holder());
        if (signature != null) {
            headers.put(SIGNATURE, signature);
        }
        return headers;
    }

    /** Trips the guard for a refused write and returns the exception to throw in its place. */
    public FencedOutException fencedOut(FenceRefusal refusal, String detail, Throwable cause) {
        FencedOutException fencedOut = new FencedOutException(guard.lease(), refusal, detail, cause);
        guard.trip(FencedOutException.reason(refusal, detail));
        return fencedOut;
    }
}
