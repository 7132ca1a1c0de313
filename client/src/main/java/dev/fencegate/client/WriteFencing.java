package dev.fencegate.client;

import java.util.Base64;
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
    private static final String SIGNATURE_VERSION = "v1=";
    /** base64url of a 32-byte MAC, without its pad, as {@link TokenSigner} writes it. */
    private static final int SIGNATURE_LENGTH = 43;
    private static final int MAC_BYTES = 32;

    private final LeaseGuard guard;
    private final String signature;

    private WriteFencing(LeaseGuard guard, String signature) {
        this.guard = Objects.requireNonNull(guard, "guard");
        this.signature = signature;
    }

    /** Writes carrying the guarded lease's token and holder. */
    public static WriteFencing of(LeaseGuard guard) {
        return new WriteFencing(guard, null);
    }

    /**
     * The same, with the issuer's signature of this token on the resource (see {@link TokenSigner}).
     * A signature the gateway cannot read as one is refused here: its first write would be refused,
     * and that refusal would trip the guard.
     */
    public WriteFencing signedWith(String signature) {
        Objects.requireNonNull(signature, "signature");
        if (!readable(signature)) {
            // The value is not shown: a signature stands for the issuer's key on this grant.
            throw new IllegalArgumentException("signature: not " + SIGNATURE_VERSION
                    + " and the 43 base64url characters of an HMAC-SHA256 (one '=' pad allowed), as TokenSigner.sign writes it"
                    + " and the gateway reads it");
        }
        return new WriteFencing(guard, signature);
    }

    /** As the gateway reads a signature: its version, then one 32-byte MAC in the one spelling base64url gives it. */
    private static boolean readable(String signature) {
        if (!signature.startsWith(SIGNATURE_VERSION)) {
            return false;
        }
        String encoded = signature.substring(SIGNATURE_VERSION.length());
        String unpadded = encoded.length() == SIGNATURE_LENGTH + 1 && encoded.endsWith("=") ? encoded.substring(0, SIGNATURE_LENGTH) : encoded;
        try {
            byte[] mac = Base64.getUrlDecoder().decode(unpadded);
            return mac.length == MAC_BYTES && Base64.getUrlEncoder().withoutPadding().encodeToString(mac).equals(unpadded);
        } catch (IllegalArgumentException notBase64url) {
            return false;
        }
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
