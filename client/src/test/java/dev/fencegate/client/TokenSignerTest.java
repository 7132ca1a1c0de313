package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

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
}
