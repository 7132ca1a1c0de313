package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

    /**
     * A signature the gateway would not read as one is refused when the writes are set up: sent, its
     * first write would be refused, and that refusal would trip the guard. Its value is not shown.
     */
    @Test
    void aSignatureTheGatewayCannotReadIsRefusedBeforeAnyWriteAndNotShown() {
        FakeTicker clock = new FakeTicker();
        Lease lease = new Lease("report", "worker-a", 42, Duration.ofSeconds(30));
        LeaseGuard guard = new LeaseGuard(lease, LeaseTiming.of(lease.ttl()), clock, clock.nanos());
        String good = signer.sign("/bucket/jobs/nightly", 42);
        String lastCharacterWithUnusedBits = good.substring(0, good.length() - 1)
                + (char) (good.charAt(good.length() - 1) == 'A' ? 'B' : good.charAt(good.length() - 1) ^ 1);
        for (String unreadable : List.of("v1=secret-key-material", good.substring(3), "v2=" + good.substring(3), good + "==",
                good.substring(0, good.length() - 1), good + "A",
                "v1=" + "+".repeat(43), lastCharacterWithUnusedBits, good + "\r\nX-Other: 1")) {
            assertThatThrownBy(() -> WriteFencing.of(guard).signedWith(unreadable)).as(unreadable)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("43 base64url characters")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(unreadable).doesNotContain("secret"));
        }
        assertThat(WriteFencing.of(guard).signedWith(good).headersForWrite()).containsEntry(WriteFencing.SIGNATURE, good);
        assertThat(WriteFencing.of(guard).signedWith(good + "=").headersForWrite()).as("the one pad the gateway takes")
                .containsEntry(WriteFencing.SIGNATURE, good + "=");
        assertThat(guard.stillHeld()).isTrue();
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
