package dev.fencegate.fence;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Fencing tokens signed by their issuer. One write carrying 9223372036854775807 would fence every
 * holder out for good; with a key shared only by the lease service and the gateways, a worker can
 * present only tokens the issuer granted for that resource. The signature is
 * {@code v1=} base64url(HMAC-SHA256(key, "fencegate-v1\n" + resource + "\n" + token)): the 43
 * characters that encoding writes, or those and one '=' pad; no other spelling.
 */
public final class TokenSignatures {

    public static final String VERSION = "v1=";
    private static final String ALGORITHM = "HmacSHA256";
    private static final int MIN_KEY_BYTES = 32;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    /** base64url of a 32-byte MAC, without its pad. */
    private static final int UNPADDED_LENGTH = 43;

    private final SecretKeySpec key;

    public TokenSignatures(byte[] key) {
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("token key: " + key.length + " bytes (expected at least " + MIN_KEY_BYTES + ")");
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    /** The signature the issuer attaches to a grant of {@code token} on {@code resource}. */
    public String sign(ResourceKey resource, FencingToken token) {
        return VERSION + ENCODER.encodeToString(mac(resource, token));
    }

    /** Empty when {@code presented} is the issuer's signature of the claim; otherwise why not. */
    public Optional<String> verify(FenceClaim claim, String presented) {
        if (presented == null) {
            return Optional.of("the write carries no Fencing-Token-Signature, and tokens must be signed by their issuer");
        }
        if (!presented.startsWith(VERSION)) {
            return Optional.of("expected a signature of the form " + VERSION + "<base64url HMAC-SHA256>");
        }
        String encoded = presented.substring(VERSION.length());
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(encoded);
        } catch (IllegalArgumentException e) {
            return Optional.of("the signature is not base64url");
        }
        // The decoder also takes non-zero unused bits in the last character, so each MAC would have
        // several spellings: only the one sign() writes passes, with or without the one '=' pad
        // that issuers' default encoders (Python's urlsafe_b64encode, Go's URLEncoding) add.
        String unpadded = encoded.length() == UNPADDED_LENGTH + 1 && encoded.endsWith("=")
                ? encoded.substring(0, UNPADDED_LENGTH) : encoded;
        boolean canonical = ENCODER.encodeToString(given).equals(unpadded);
        if (!canonical || !MessageDigest.isEqual(given, mac(claim.resource(), claim.token()))) {
            return Optional.of("the signature does not match token " + claim.token() + " on " + claim.resource());
        }
        return Optional.empty();
    }

    private byte[] mac(ResourceKey resource, FencingToken token) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(("fencegate-v1\n" + resource.value() + "\n" + token.value()).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform", e);
        }
    }
}
