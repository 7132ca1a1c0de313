package dev.fencegate.workers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.client.FencedHttpClient;
import dev.fencegate.client.Lease;
import dev.fencegate.client.LeaseGuard;
import dev.fencegate.client.LeaseTiming;
import dev.fencegate.client.Ticker;
import dev.fencegate.client.TokenSigner;
import dev.fencegate.client.WriteFencing;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The client library's signer and its headers are what a gateway with --token-key-file accepts. */
@ExtendWith(NoNettyLeaks.class)
class SignedWorkerWritesIT {

    private static final String KEY = "a-shared-key-of-at-least-32-bytes-for-workers";

    @Test
    void aWriteSignedByTheLibrarysSignerRaisesTheFenceAndASignatureForAnotherResourceDoesNot() throws Exception {
        Path keyFile = Files.createTempFile("fencegate-token-key", ".txt");
        Files.writeString(keyFile, KEY + "\n");
        TokenSigner issuer = new TokenSigner(KEY.getBytes(StandardCharsets.UTF_8));
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, TestPostgres.config(TestPostgres.newSchema("signed_workers")), Duration.ofSeconds(5), Duration.ofSeconds(5),
                new SafetyConfig(false, false, 100_000, keyFile.toString())))) {
            String path = "/jobs/report";
            FencedHttpClient worker = worker(5, issuer.sign(path, 5));
            assertThat(put(worker, gateway, path)).isEqualTo(201);

            FencedHttpClient borrowed = worker(6, issuer.sign("/jobs/other", 6));
            assertThat(put(borrowed, gateway, path)).as("a signature for another resource").isEqualTo(403);
            assertThat(gateway.fenceRow(path)).isEqualTo(5);
        }
    }

    private static FencedHttpClient worker(long token, String signature) {
        Duration ttl = Duration.ofMinutes(1);
        Ticker clock = Ticker.system();
        LeaseGuard guard = new LeaseGuard(new Lease("report", "worker-" + token, token, ttl), LeaseTiming.of(ttl), clock, clock.nanos());
        return new FencedHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build(), WriteFencing.of(guard).signedWith(signature));
    }

    private static int put(FencedHttpClient worker, GatewayHarness gateway, String path) throws Exception {
        return worker.send(HttpRequest.newBuilder(gateway.uri(path)).PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
