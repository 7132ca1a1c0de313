package dev.fencegate.client;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * For a lease service that issues signed tokens (the gateway's {@code --token-key-file}): the
 * {@code Fencing-Token-Signature} of a grant, {@code v1=} base64url(HMAC-SHA256(key,
 * "fencegate-v1\n" + resource + "\n" + token)). The resource is the key the gateway fences: the
 * canonical path of the object, or its job scope.
 */
public final class TokenSigner {

    private static final String ALGORITHM = "HmacSHA256";
    private static final int MIN_KEY_BYTES = 32;

    private final SecretKeySpec key;

    public TokenSigner(byte[] key) {
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("token key: " + key.length + " bytes (expected at least " + MIN_KEY_BYTES + ")");
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    public String sign(String resource, long token) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            byte[] digest = mac.doFinal(("fencegate-v1\n" + resource + "\n" + token).getBytes(StandardCharsets.UTF_8));
            return "v1=" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform", e);
        }
    }
}
