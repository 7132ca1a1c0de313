package dev.fencegate.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencegate.Gateway;
import dev.fencegate.client.FencedOutException;
import dev.fencegate.client.FenceRefusal;
import dev.fencegate.client.FencingInterceptor;
import dev.fencegate.client.HeldLease;
import dev.fencegate.client.Lease;
import dev.fencegate.client.LeaseLostException;
import dev.fencegate.client.LeaseStore;
import dev.fencegate.client.LeaseTiming;
import dev.fencegate.client.PostgresLeaseStore;
import dev.fencegate.client.WriteFencing;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.store.LocalPostgres;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Two workers on one lease, each with the client library on an unmodified AWS SDK v2 client,
 * writing through the gateway to S3Proxy checking SigV4 signatures. The first pauses past its
 * lease without noticing; the second takes over; the first is refused at its next write and
 * stops there.
 */
@ExtendWith(NoNettyLeaks.class)
class WorkersOnOneLeaseIT {

    private static final String BUCKET = "reports";
    private static final LeaseTiming TIMING = new LeaseTiming(Duration.ofSeconds(2), Duration.ofMillis(400), Duration.ofMillis(400));
    private static S3Store store;
    private static Gateway gateway;
    private static LeaseStore leases;

    @BeforeAll
    static void start() throws InterruptedException {
        store = S3Store.authenticated();
        store.createBucket(BUCKET);
        // Client connections stay open across A's pause: a gateway closing an idle one with a 408 would
        // answer A's next write before the fence could, on a machine slow enough to idle that long.
        gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()),
                TestPostgres.config(TestPostgres.newSchema(WorkersOnOneLeaseIT.class.getSimpleName())),
                Duration.ofSeconds(30), Duration.ofMinutes(2), SafetyConfig.defaults()));
        LocalPostgres pg = TestPostgres.server();
        String schema = TestPostgres.newSchema(WorkersOnOneLeaseIT.class.getSimpleName());
        DataSource database = PostgresLeaseStore.dataSource(pg.url(), pg.user(), pg.password(), schema, Duration.ofSeconds(5));
        PostgresLeaseStore.migrate(database, schema);
        leases = new PostgresLeaseStore(database);
    }

    @AfterAll
    static void stop() {
        try {
            gateway.close();
        } finally {
            store.close();
        }
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void aWorkerPausedPastItsLeaseIsRefusedAtItsNextWriteAndItsGuardTrips(RequestChecksumCalculation checksums) {
        String job = "nightly-" + UUID.randomUUID();
        String key = job + "/report.csv";
        // Worker A's whole process pauses: its renewal thread blocks, and its clock stands still, so its
        // guard cannot tell; only the fence can stop it.
        PausableRenewals aLeases = new PausableRenewals(leases);
        AtomicLong aClock = new AtomicLong();
        AtomicInteger aSent = new AtomicInteger();

        try (HeldLease a = HeldLease.acquire(aLeases, job, "worker-a", TIMING, aClock::get).orElseThrow();
             S3Client aS3 = client(checksums, WriteFencing.of(a.guard()), aSent)) {
            aS3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("A's draft"));
            assertThat(store.object(BUCKET, key)).hasValue("A's draft");

            aLeases.pause();
            try (HeldLease b = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> HeldLease.acquire(leases, job, "worker-b", TIMING), Optional::isPresent).orElseThrow();
                 S3Client bS3 = client(checksums, WriteFencing.of(b.guard()), new AtomicInteger())) {
                assertThat(b.token()).isGreaterThan(a.token());
                bS3.putObject(r -> r.bucket(BUCKET).key(key), RequestBody.fromString("B's report"));

                assertThat(a.guard().stillHeld()).as("A's guard, by A's stopped clock").isTrue();
                int sentBefore = aSent.get();
                assertThatThrownBy(() -> aS3.putObject(r -> r.bucket(BUCKET).key(key), RequestBody.fromString("A's stale report")))
                        .isInstanceOfSatisfying(S3Exception.class, e -> {
                            assertThat(e.statusCode()).isEqualTo(412);
                            assertThat(LeaseLostException.in(e)).containsInstanceOf(FencedOutException.class)
                                    .hasValueSatisfying(lost -> assertThat(((FencedOutException) lost).refusal())
                                            .isEqualTo(FenceRefusal.STALE_TOKEN));
                        });
                assertThat(a.guard().stillHeld()).isFalse();
                assertThat(a.guard().lostBecause()).hasValueSatisfying(reason -> assertThat(reason).contains("FencingTokenStale"));

                assertThatThrownBy(() -> aS3.deleteObject(r -> r.bucket(BUCKET).key(key)))
                        .satisfies(e -> assertThat(LeaseLostException.in(e)).isPresent());
                assertThat(aSent.get() - sentBefore).as("A's requests sent from its refusal on").isEqualTo(1);
                assertThat(store.object(BUCKET, key)).hasValue("B's report");
            } finally {
                aLeases.resume();
            }
        }
    }

    /** An unmodified SDK client pointed at the gateway: the fencing is one interceptor. */
    private static S3Client client(RequestChecksumCalculation checksums, WriteFencing fencing, AtomicInteger sent) {
        return S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + gateway.port()))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3Store.IDENTITY, S3Store.CREDENTIAL)))
                .requestChecksumCalculation(checksums)
                .overrideConfiguration(o -> o.addExecutionInterceptor(new FencingInterceptor(fencing))
                        .addExecutionInterceptor(new ExecutionInterceptor() {
                            @Override
                            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                                sent.incrementAndGet();
                            }
                        }))
                .build();
    }

    /** The lease store as a paused process reaches it: not at all, until it resumes. */
    private static final class PausableRenewals implements LeaseStore {
        private final LeaseStore store;
        private volatile CountDownLatch paused = new CountDownLatch(0);

        PausableRenewals(LeaseStore store) {
            this.store = store;
        }

        void pause() {
            paused = new CountDownLatch(1);
        }

        void resume() {
            paused.countDown();
        }

        @Override
        public Optional<Lease> acquire(String name, String holder, Duration ttl) {
            return store.acquire(name, holder, ttl);
        }

        @Override
        public boolean renew(Lease lease, Duration ttl) {
            try {
                paused.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            return store.renew(lease, ttl);
        }

        @Override
        public boolean release(Lease lease) {
            return store.release(lease);
        }
    }
}
