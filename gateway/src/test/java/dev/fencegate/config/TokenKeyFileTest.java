package dev.fencegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key file format: printable UTF-8 text of at least 32 bytes, surrounding whitespace dropped. */
class TokenKeyFileTest {

    private static final String KEY = "k3y-of-at-least-thirty-two-bytes-éà";

    @TempDir
    Path dir;

    @Test
    void theKeyIsTheTextsUtf8BytesWithoutSurroundingWhitespace() throws IOException {
        Path file = Files.writeString(dir.resolve("key"), "  " + KEY + "\r\n", StandardCharsets.UTF_8);

        assertThat(new SafetyConfig(false, false, 100_000, file.toString()).tokenKey()).hasValueSatisfying(
                key -> assertThat(key).isEqualTo(KEY.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void controlCharactersInsideTheKeyAreRefused() throws IOException {
        Path file = Files.writeString(dir.resolve("key"), "abcdefghijklmnop\u0000qrstuvwxyz0123456789");

        assertThatThrownBy(() -> new SafetyConfig(false, false, 100_000, file.toString()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds control characters");
    }

    @Test
    void aMissingFileIsNamed() {
        Path file = dir.resolve("absent");

        assertThatThrownBy(() -> new SafetyConfig(false, false, 100_000, file.toString()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--token-key-file: '" + file + "' could not be read");
    }
}
