package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

class FencingInterceptorTest {

    private static final String SIGNATURE = new TokenSigner(new byte[32]).sign("/b/report.csv", 7);

    private final FakeTicker clock = new FakeTicker();
    private final Lease lease = new Lease("report", "worker-a", 7, Duration.ofSeconds(30));
    private final LeaseGuard guard = new LeaseGuard(lease, LeaseTiming.of(lease.ttl()), clock, clock.nanos());
    private FakeGateway gateway;
    private S3Client s3;

    @BeforeEach
    void start() throws Exception {
        gateway = new FakeGateway();
        s3 = S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + gateway.port()))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("id", "secret")))
                .overrideConfiguration(o -> o.addExecutionInterceptor(new FencingInterceptor(WriteFencing.of(guard))))
                .build();
    }

    @AfterEach
    void stop() {
        s3.close();
        gateway.close();
    }

    @Test
    void writesCarryTheTokenAndHolderInsideTheirSignatureAndReadsDoNot() {
        s3.putObject(b -> b.bucket("b").key("report.csv"), RequestBody.fromString("x"));
        s3.deleteObject(b -> b.bucket("b").key("report.csv"));
        s3.headObject(b -> b.bucket("b").key("report.csv"));

        assertThat(gateway.seen).extracting(FakeGateway.Seen::method).containsExactly("PUT", "DELETE", "HEAD");
        for (FakeGateway.Seen write : gateway.seen.subList(0, 2)) {
            assertThat(write.headers().getFirst("Fencing-Token")).isEqualTo("7");
            assertThat(write.headers().getFirst("Fencing-Holder")).isEqualTo("worker-a");
            assertThat(write.headers().getFirst("Authorization")).as("signed after the headers were added")
                    .contains("fencing-holder;fencing-token");
        }
        assertThat(gateway.seen.get(2).headers()).doesNotContainKeys("Fencing-Token", "Fencing-Holder");
    }

    /**
     * Headers the client's configuration sets are added after the interceptor's, with names as
     * given: a caller's own token header, in any case, would go beside the lease's or in its place.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fencing-token", "Fencing-Token", "FENCING-HOLDER", "fencing-token-signature"})
    void aFencingHeaderTheClientsConfigurationSetsStopsTheWriteBeforeItIsSent(String header) {
        try (S3Client presetting = client(o -> o.putHeader(header, "999")
                .addExecutionInterceptor(new FencingInterceptor(WriteFencing.of(guard).signedWith(SIGNATURE))))) {
            assertThatThrownBy(() -> presetting.putObject(b -> b.bucket("b").key("report.csv"), RequestBody.fromString("x")))
                    .hasMessageContaining("the write was not sent")
                    .satisfies(e -> assertThat(e.getMessage()).as("a signature is never shown").doesNotContain(SIGNATURE))
                    .satisfies(e -> {
                        if (!header.endsWith("signature")) {
                            assertThat(e.getMessage()).contains("999");
                        }
                    });
        }
        assertThat(gateway.seen).isEmpty();
        assertThat(guard.stillHeld()).isTrue();
    }

    /**
     * The SDK's HTTP client looks the host up as it connects, after the check, and its connection
     * timeout does not bound the lookup: the name is looked up before the lease is checked.
     */
    @Test
    void aNameLookupThatTakesPastTheLeaseIsMadeBeforeTheCheckSoTheWriteIsNotSent() {
        List<String> looked = new ArrayList<>();
        try (S3Client slowNames = client(o -> o.addExecutionInterceptor(new FencingInterceptor(WriteFencing.of(guard), host -> {
            looked.add(host);
            clock.advance(Duration.ofSeconds(25)); // a resolver that answered late
        })))) {
            assertThatThrownBy(() -> slowNames.putObject(b -> b.bucket("b").key("report.csv"), RequestBody.fromString("x")))
                    .satisfies(e -> assertThat(LeaseLostException.in(e)).hasValueSatisfying(
                            lost -> assertThat(lost).hasMessageContaining("ran out")));
        }
        assertThat(looked).containsExactly("127.0.0.1");
        assertThat(gateway.seen).isEmpty();
    }

    private S3Client client(Consumer<ClientOverrideConfiguration.Builder> configuration) {
        return S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + gateway.port()))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("id", "secret")))
                .overrideConfiguration(configuration)
                .build();
    }

    /**
     * An anonymous client's DeleteObject carries neither an Authorization nor x-amz-content-sha256,
     * so a gateway that does not read amz-sdk-invocation-id (one before it did) refuses it in
     * problem+json, not S3 XML: the SDK finds no error code in it, and the refusal is read from the
     * body's problem type instead.
     */
    @Test
    void anAnonymousDeleteRefusedInProblemJsonIsFencedOutAndTripsTheGuard() {
        gateway.readsSdkInvocationId = false;
        gateway.fence.set(8);
        try (S3Client anonymous = S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + gateway.port()))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(AnonymousCredentialsProvider.create())
                .overrideConfiguration(o -> o.addExecutionInterceptor(new FencingInterceptor(WriteFencing.of(guard))))
                .build()) {
            assertThatThrownBy(() -> anonymous.deleteObject(b -> b.bucket("b").key("report.csv")))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(412);
                        assertThat(LeaseLostException.in(e)).hasValueSatisfying(lost -> {
                            assertThat(lost).isInstanceOf(FencedOutException.class).hasMessageContaining("\"currentToken\":8");
                            assertThat(((FencedOutException) lost).refusal()).isEqualTo(FenceRefusal.STALE_TOKEN);
                        });
                    });
            assertThat(guard.stillHeld()).isFalse();
            assertThat(gateway.seen.get(0).headers()).as("sent as the gateway answers in problem+json")
                    .doesNotContainKeys("Authorization", "X-amz-content-sha256");

            assertThatThrownBy(() -> anonymous.deleteObject(b -> b.bucket("b").key("other.csv")))
                    .satisfies(e -> assertThat(LeaseLostException.in(e)).isPresent());
            assertThat(gateway.seen).hasSize(1);
        }
    }

    @Test
    void aRefusedWriteIsFencedOutTripsTheGuardAndTheNextWriteIsNotSent() {
        gateway.fence.set(8);
        assertThatThrownBy(() -> s3.putObject(b -> b.bucket("b").key("report.csv"), RequestBody.fromString("late")))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(412);
                    assertThat(LeaseLostException.in(e)).hasValueSatisfying(lost -> {
                        assertThat(lost).isInstanceOf(FencedOutException.class).hasMessageContaining("below the fence 8");
                        assertThat(((FencedOutException) lost).refusal()).isEqualTo(FenceRefusal.STALE_TOKEN);
                    });
                });
        assertThat(guard.stillHeld()).isFalse();

        assertThatThrownBy(() -> s3.deleteObject(b -> b.bucket("b").key("report.csv")))
                .satisfies(e -> assertThat(LeaseLostException.in(e)).isPresent());
        assertThat(gateway.seen).hasSize(1);
    }
}
