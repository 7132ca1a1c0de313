package dev.fencegate.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How strict the gateway is about what an acknowledged fence means.
 *
 * @param allowUnsafeDurability serve writes even when the database settings can lose acknowledged commits
 * @param requireSyncStandby    refuse writes unless a synchronous standby confirms every commit
 * @param rememberedFences      how many resources each instance remembers the highest admitted token of
 * @param tokenKeyFile          a file holding the key tokens must be signed with, or empty: tokens need no signature.
 *                              The key is text: the file's UTF-8 content without surrounding whitespace, at least
 *                              32 bytes of printable characters (such as {@code openssl rand -base64 48}), so that
 *                              issuers in any language sign with the same bytes.
 */
public record SafetyConfig(boolean allowUnsafeDurability, boolean requireSyncStandby, int rememberedFences,
                           String tokenKeyFile) {

    /** What {@code TokenSignatures} needs for HMAC-SHA256. */
    private static final int MIN_KEY_BYTES = 32;

    public SafetyConfig {
        if (rememberedFences < 1_000 || rememberedFences > 50_000_000) {
            throw new IllegalArgumentException("--remembered-fences: " + rememberedFences + " (expected 1000 to 50000000)");
        }
        tokenKeyFile = tokenKeyFile == null ? "" : tokenKeyFile;
        if (!tokenKeyFile.isEmpty()) {
            readKey(tokenKeyFile);
        }
    }

    public SafetyConfig(boolean allowUnsafeDurability, boolean requireSyncStandby, int rememberedFences) {
        this(allowUnsafeDurability, requireSyncStandby, rememberedFences, "");
    }

    public static SafetyConfig defaults() {
        return new SafetyConfig(false, false, 100_000);
    }

    /** Whether every token must carry its issuer's signature. */
    public boolean requiresSignatures() {
        return !tokenKeyFile.isEmpty();
    }

    /** The signing key: the UTF-8 bytes of the file's text without surrounding whitespace. */
    public Optional<byte[]> tokenKey() {
        return tokenKeyFile.isEmpty() ? Optional.empty() : Optional.of(readKey(tokenKeyFile));
    }

    private static byte[] readKey(String file) {
        String expected = " (expected a text file holding the signing key: at least " + MIN_KEY_BYTES
                + " bytes of printable UTF-8 text, such as the output of 'openssl rand -base64 48')";
        byte[] content;
        try {
            content = Files.readAllBytes(Path.of(file));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("--token-key-file: '" + file + "' could not be read (" + e + ")" + expected, e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(content)).toString().strip();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("--token-key-file: '" + file + "' holds binary data, not UTF-8 text" + expected, e);
        }
        if (text.chars().anyMatch(c -> c < 0x20 || c == 0x7F)) {
            throw new IllegalArgumentException("--token-key-file: '" + file + "' holds control characters" + expected);
        }
        byte[] key = text.getBytes(StandardCharsets.UTF_8);
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("--token-key-file: '" + file + "' holds a key of " + key.length + " bytes" + expected);
        }
        return key;
    }
}
