package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.TokenSignatures;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** With signed tokens, a worker cannot fence everybody out by sending 9223372036854775807. */
@ExtendWith(NoNettyLeaks.class)
class TokenPoisoningIT {

    private static final String KEY = "a-shared-key-of-at-least-32-bytes-for-tests";

    @Test
    void onlyTokensSignedByTheIssuerRaiseAFence() throws Exception {
        Path keyFile = Files.createTempFile("fencegate-token-key", ".txt");
        Files.writeString(keyFile, KEY + "\n");
        TokenSignatures issuer = new TokenSignatures(KEY.getBytes(StandardCharsets.UTF_8));
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, TestPostgres.config(TestPostgres.newSchema("poisoning")), Duration.ofSeconds(5), Duration.ofSeconds(5),
                new SafetyConfig(false, false, 100_000, keyFile.toString())))) {
            String path = "/jobs/report";
            assertThat(put(gateway, path, 5, issuer.sign(new ResourceKey(path), new FencingToken(5))).statusCode()).isEqualTo(201);

            HttpResponse<String> unsigned = put(gateway, path, Long.MAX_VALUE, null);
            assertThat(unsigned.statusCode()).isEqualTo(401);
            assertThat(unsigned.body()).contains("unsigned-token");
            HttpResponse<String> forged = put(gateway, path, Long.MAX_VALUE, issuer.sign(new ResourceKey(path), new FencingToken(5)));
            assertThat(forged.statusCode()).isEqualTo(403);
            assertThat(forged.body()).contains("bad-token-signature");
            HttpResponse<String> borrowed = put(gateway, path, 6, issuer.sign(new ResourceKey("/jobs/other"), new FencingToken(6)));
            assertThat(borrowed.statusCode()).as("a signature for another resource").isEqualTo(403);

            assertThat(gateway.fenceRow(path)).isEqualTo(5);
            assertThat(gateway.store.appliedTo(path)).hasSize(1);
            assertThat(put(gateway, path, 6, issuer.sign(new ResourceKey(path), new FencingToken(6))).statusCode()).isEqualTo(204);
        }
    }

    private static HttpResponse<String> put(GatewayHarness gateway, String path, long token, String signature) {
        HttpRequest.Builder request = HttpRequest.newBuilder(gateway.uri(path)).header("Fencing-Token", Long.toString(token))
                .PUT(HttpRequest.BodyPublishers.ofString("x"));
        if (signature != null) {
            request.header("Fencing-Token-Signature", signature);
        }
        return gateway.send(request.build());
    }
}
