package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenSignerTest {

    private final TokenSigner signer = new TokenSigner("k".repeat(32).getBytes(StandardCharsets.US_ASCII));

    @Test
    void signsInTheGatewaysV1Format() {
        // Computed apart from this code: Python's hmac over "fencegate-v1\n/bucket/jobs/nightly\n42", base64url without padding.
        assertThat(signer.sign("/bucket/jobs/nightly", 42)).isEqualTo("v1=H92TdF1ceRwPPlN2ugynt6jn28a84x4CxJ5aImcVp10");
        assertThat(signer.sign("/bucket/jobs/nightly", 43)).isNotEqualTo(signer.sign("/bucket/jobs/nightly", 42));
    }

    @Test
    void aShortKeyIsRefused() {
        assertThatThrownBy(() -> new TokenSigner(new byte[16])).hasMessageContaining("expected at least 32");
    }

    /** The gateway reads its key file as text without surrounding whitespace: so does the signer's reader. */
    @Test
    void aKeyFileIsReadAsTheGatewayReadsIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("token.key");
        Files.writeString(file, "k".repeat(32) + "\n");

        assertThat(TokenSigner.fromKeyFile(file).sign("/bucket/jobs/nightly", 42)).isEqualTo(signer.sign("/bucket/jobs/nightly", 42));
        assertThat(new TokenSigner(Files.readAllBytes(file)).sign("/bucket/jobs/nightly", 42))
                .as("the file's bytes, final newline included, are another key").isNotEqualTo(signer.sign("/bucket/jobs/nightly", 42));

        Path controls = Files.writeString(dir.resolve("controls.key"), "k".repeat(16) + "\t" + "k".repeat(16) + "\n");
        assertThatThrownBy(() -> TokenSigner.fromKeyFile(controls)).as("a key the gateway would not start with")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control characters");
    }
}
