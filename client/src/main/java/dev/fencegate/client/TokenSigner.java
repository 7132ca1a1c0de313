package dev.fencegate.client;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * For a lease service that issues signed tokens (the gateway's {@code --token-key-file}): the
 * {@code Fencing-Token-Signature} of a grant, {@code v1=} base64url(HMAC-SHA256(key,
 * "fencegate-v1\n" + resource + "\n" + token)), unpadded. The resource is signed as given, and must
 * be the key the gateway checks the write against, which is not always the path written: the
 * canonical path, without a final '/' under the S3 store kinds, {@code /bucket/key} with the bucket
 * from the Host under {@code s3-virtual-host}, and the job's key ({@code /data/jobs/50}) for a write
 * under a job scope. {@code fencegate.jar sign} with the gateway's settings prints that key.
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

    /**
     * The signer for the key in {@code file}, read as the gateway reads its {@code --token-key-file}:
     * the file's UTF-8 text without surrounding whitespace (a final newline is not part of the key).
     */
    public static TokenSigner fromKeyFile(Path file) throws IOException {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("token key file " + file + ": not UTF-8 text, as the gateway expects", e);
        }
        String key = text.strip();
        if (key.chars().anyMatch(c -> c < 0x20 || c == 0x7F)) {
            throw new IllegalArgumentException("token key file " + file + ": holds control characters, which the gateway refuses"
                    + " in its --token-key-file");
        }
        return new TokenSigner(key.getBytes(StandardCharsets.UTF_8));
    }

    /** @param resource the key the gateway checks the write against (see the class comment), not the path written */
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
