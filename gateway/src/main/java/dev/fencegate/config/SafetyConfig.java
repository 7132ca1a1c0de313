package dev.fencegate.config;

import java.io.IOException;
import java.io.UncheckedIOException;
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
 * @param tokenKeyFile          a file holding the key tokens must be signed with, or empty: tokens need no signature
 */
public record SafetyConfig(boolean allowUnsafeDurability, boolean requireSyncStandby, int rememberedFences,
                           String tokenKeyFile) {

    public SafetyConfig {
        if (rememberedFences < 1_000 || rememberedFences > 50_000_000) {
            throw new IllegalArgumentException("--remembered-fences: " + rememberedFences + " (expected 1000 to 50000000)");
        }
        tokenKeyFile = tokenKeyFile == null ? "" : tokenKeyFile;
        if (!tokenKeyFile.isEmpty() && !Files.isReadable(Path.of(tokenKeyFile))) {
            throw new IllegalArgumentException("--token-key-file: '" + tokenKeyFile + "' (expected a readable file holding the signing key)");
        }
    }

    public SafetyConfig(boolean allowUnsafeDurability, boolean requireSyncStandby, int rememberedFences) {
        this(allowUnsafeDurability, requireSyncStandby, rememberedFences, "");
    }

    public static SafetyConfig defaults() {
        return new SafetyConfig(false, false, 100_000);
    }

    /** The signing key: the file's bytes, without a final newline. */
    public Optional<byte[]> tokenKey() {
        if (tokenKeyFile.isEmpty()) {
            return Optional.empty();
        }
        try {
            String text = Files.readString(Path.of(tokenKeyFile), StandardCharsets.UTF_8).strip();
            return Optional.of(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("--token-key-file: '" + tokenKeyFile + "' could not be read", e);
        }
    }
}
