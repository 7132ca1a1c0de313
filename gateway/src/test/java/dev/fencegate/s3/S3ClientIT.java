package dev.fencegate.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencegate.Gateway;
import dev.fencegate.testing.FenceSchema;
import dev.fencegate.testing.NoNettyLeaks;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * An unmodified AWS SDK v2 client writing through the gateway to a signature-checking S3 store,
 * with the SDK's default checksums (aws-chunked bodies with trailers) and with checksums only
 * when required. Refusals surface as S3Exceptions carrying the gateway's own codes, not retried.
 */
@ExtendWith(NoNettyLeaks.class)
class S3ClientIT {

    private static final String BUCKET = "fenced";
    private static S3Gateway s3;

    @BeforeAll
    static void start() throws InterruptedException {
        s3 = S3Gateway.start(S3ClientIT.class.getSimpleName());
        s3.store.createBucket(BUCKET);
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    private static Consumer<AwsRequestOverrideConfiguration.Builder> token(long token) {
        return o -> o.putHeader("Fencing-Token", Long.toString(token));
    }

    private static String key() {
        return "dir/" + UUID.randomUUID() + " a+b&c.txt";
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void putGetAndDeleteWithCurrentTokensPassAndSignaturesSurviveTheHop(RequestChecksumCalculation checksums) {
        try (S3Client client = s3.client(checksums)) {
            String key = key();
            client.putObject(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(5)), RequestBody.fromString("five"));
            assertThat(client.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String()).isEqualTo("five");
            client.putObject(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(6)), RequestBody.fromString("six"));
            assertThat(s3.store.object(BUCKET, key)).hasValue("six");

            client.deleteObject(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(6)));
            assertThat(s3.store.object(BUCKET, key)).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void staleWriteSurfacesAsS3Exception412WithItsOwnCodeAndIsNotRetried(RequestChecksumCalculation checksums) throws Exception {
        try (S3Client client = s3.client(checksums)) {
            String key = key();
            client.putObject(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(9)), RequestBody.fromString("current"));
            int attemptsBefore = s3.attempts.get();
            double refusedBefore = s3.requestsWithOutcome("stale-token");

            assertThatThrownBy(() -> client.putObject(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(8)),
                    RequestBody.fromString("late")))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(412);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("FencingTokenStale");
                        assertThat(e.awsErrorDetails().errorMessage()).contains("below the fence 9");
                    });

            assertThat(s3.attempts.get() - attemptsBefore).as("SDK attempts").isEqualTo(1);
            assertThat(s3.requestsWithOutcome("stale-token") - refusedBefore).as("refusals at the gateway").isEqualTo(1);
            assertThat(s3.store.object(BUCKET, key)).hasValue("current");
        }
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void missingAndMalformedTokensGetTheirOwnCodesAndAreNotRetried(RequestChecksumCalculation checksums) {
        try (S3Client client = s3.client(checksums)) {
            String key = key();
            int attemptsBefore = s3.attempts.get();
            assertThatThrownBy(() -> client.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("x")))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(428);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("FencingTokenMissing");
                    });
            assertThatThrownBy(() -> client.deleteObject(b -> b.bucket(BUCKET).key(key).overrideConfiguration(
                    o -> o.putHeader("Fencing-Token", "07"))))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(400);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("FencingTokenMalformed");
                    });
            assertThat(s3.attempts.get() - attemptsBefore).isEqualTo(2);
            assertThat(s3.store.object(BUCKET, key)).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void copyIsFencedOnItsDestinationWhateverTheSource(RequestChecksumCalculation checksums) {
        try (S3Client client = s3.client(checksums)) {
            String source = key();
            String destination = key();
            client.putObject(b -> b.bucket(BUCKET).key(source).overrideConfiguration(token(1)), RequestBody.fromString("source"));
            client.putObject(b -> b.bucket(BUCKET).key(destination).overrideConfiguration(token(9)), RequestBody.fromString("newer"));

            assertThatThrownBy(() -> client.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(source)
                    .destinationBucket(BUCKET).destinationKey(destination).overrideConfiguration(token(8))))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
            assertThat(s3.store.object(BUCKET, destination)).hasValue("newer");

            client.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(source)
                    .destinationBucket(BUCKET).destinationKey(destination).overrideConfiguration(token(9)));
            assertThat(s3.store.object(BUCKET, destination)).hasValue("source");
        }
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void multipartUploadIsFencedAtEveryStepAndAStaleCompleteIsRefused(RequestChecksumCalculation checksums) {
        try (S3Client client = s3.client(checksums)) {
            String key = key();
            String part1 = "a".repeat(5 * 1024 * 1024);
            String part2 = "tail";

            String fresh = client.createMultipartUpload(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(3))).uploadId();
            List<CompletedPart> parts = List.of(
                    upload(client, key, fresh, 1, part1, 3), upload(client, key, fresh, 2, part2, 3));
            client.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(fresh)
                    .multipartUpload(CompletedMultipartUpload.builder().parts(parts).build()).overrideConfiguration(token(3)));
            assertThat(s3.store.object(BUCKET, key)).hasValueSatisfying(body -> assertThat(body).hasSize(part1.length() + 4));

            // A paused holder of token 3 started an upload; a newer holder wrote with token 4 meanwhile.
            String late = client.createMultipartUpload(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(3))).uploadId();
            CompletedPart latePart = upload(client, key, late, 1, "late", 3);
            client.putObject(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(4)), RequestBody.fromString("newer"));

            assertThatThrownBy(() -> upload(client, key, late, 2, "more", 3))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
            assertThatThrownBy(() -> client.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(late)
                    .multipartUpload(CompletedMultipartUpload.builder().parts(latePart).build()).overrideConfiguration(token(3))))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(412);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("FencingTokenStale");
                    });
            assertThatThrownBy(() -> client.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(late).overrideConfiguration(token(3))))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
            assertThat(s3.store.object(BUCKET, key)).hasValue("newer");

            client.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(late).overrideConfiguration(token(4)));
        }
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void anUploadIdIsUsableOnlyWithTheKeyItWasCreatedFor(RequestChecksumCalculation checksums) {
        try (S3Client client = s3.client(checksums)) {
            String victim = key();
            String own = key();
            String id = client.createMultipartUpload(b -> b.bucket(BUCKET).key(victim).overrideConfiguration(token(3))).uploadId();
            CompletedPart first = upload(client, victim, id, 1, "victim's part", 3);
            int attemptsBefore = s3.attempts.get();

            // A writer holding a valid token for its own key names the victim's upload id.
            Consumer<S3Exception> foreign = e -> {
                assertThat(e.statusCode()).isEqualTo(403);
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo("FencegateUploadNotForThisKey");
            };
            assertThatThrownBy(() -> upload(client, own, id, 1, "intruder", 9))
                    .isInstanceOfSatisfying(S3Exception.class, foreign);
            assertThatThrownBy(() -> client.completeMultipartUpload(b -> b.bucket(BUCKET).key(own).uploadId(id)
                    .multipartUpload(CompletedMultipartUpload.builder().parts(first).build()).overrideConfiguration(token(9))))
                    .isInstanceOfSatisfying(S3Exception.class, foreign);
            assertThatThrownBy(() -> client.abortMultipartUpload(b -> b.bucket(BUCKET).key(own).uploadId(id).overrideConfiguration(token(9))))
                    .isInstanceOfSatisfying(S3Exception.class, foreign);
            assertThatThrownBy(() -> upload(client, own, "made-up-" + UUID.randomUUID(), 1, "x", 9))
                    .as("an id the gateway never saw created").isInstanceOfSatisfying(S3Exception.class, foreign);
            assertThat(s3.attempts.get() - attemptsBefore).as("none retried").isEqualTo(4);

            // The victim's upload is intact and completes as its writer meant.
            client.completeMultipartUpload(b -> b.bucket(BUCKET).key(victim).uploadId(id)
                    .multipartUpload(CompletedMultipartUpload.builder().parts(first).build()).overrideConfiguration(token(3)));
            assertThat(s3.store.object(BUCKET, victim)).hasValue("victim's part");
            assertThat(s3.store.object(BUCKET, own)).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void anUploadIdCreatedThroughOneInstanceIsKnownToAnother(RequestChecksumCalculation checksums) throws InterruptedException {
        Gateway other = s3.anotherInstance();
        try (S3Client here = s3.client(checksums); S3Client there = s3.client(checksums, other.port())) {
            String key = key();
            String id = here.createMultipartUpload(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(2))).uploadId();
            CompletedPart part = upload(there, key, id, 1, "through the other instance", 2);
            there.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(id)
                    .multipartUpload(CompletedMultipartUpload.builder().parts(part).build()).overrideConfiguration(token(2)));
            assertThat(s3.store.object(BUCKET, key)).hasValue("through the other instance");
            assertThatThrownBy(() -> upload(there, key() , id, 2, "x", 2))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
        } finally {
            other.close();
        }
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void anUploadOlderThanTheMultipartUploadLifetimeIsRefusedAsUnknown(RequestChecksumCalculation checksums) {
        try (S3Client client = s3.client(checksums)) {
            String key = key();
            String id = client.createMultipartUpload(b -> b.bucket(BUCKET).key(key).overrideConfiguration(token(4))).uploadId();
            CompletedPart first = upload(client, key, id, 1, "first part", 4);
            assertThat(new FenceSchema(s3.database.schema()).ageUpload(id, Duration.ofDays(7).plusMinutes(1))).isEqualTo(1);
            int attemptsBefore = s3.attempts.get();

            assertThatThrownBy(() -> client.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(id)
                    .multipartUpload(CompletedMultipartUpload.builder().parts(first).build()).overrideConfiguration(token(4))))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(403);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("FencegateUploadNotForThisKey");
                        assertThat(e.awsErrorDetails().errorMessage()).contains("--multipart-upload-lifetime");
                    });
            assertThat(s3.attempts.get() - attemptsBefore).as("not retried").isEqualTo(1);
            assertThat(s3.store.object(BUCKET, key)).isEmpty();
        }
    }

    private static CompletedPart upload(S3Client client, String key, String uploadId, int number, String body, long token) {
        String etag = client.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(number)
                .overrideConfiguration(token(token)), RequestBody.fromString(body)).eTag();
        return CompletedPart.builder().partNumber(number).eTag(etag).build();
    }

    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void deleteObjectsIsRefusedWholeWhenAnyKeyIsFencedAboveTheToken(RequestChecksumCalculation checksums) {
        try (S3Client client = s3.client(checksums)) {
            String a = key();
            String b = key();
            String c = key();
            for (String key : List.of(a, b)) {
                client.putObject(r -> r.bucket(BUCKET).key(key).overrideConfiguration(token(5)), RequestBody.fromString(key));
            }
            client.putObject(r -> r.bucket(BUCKET).key(c).overrideConfiguration(token(7)), RequestBody.fromString("newer"));
            int attemptsBefore = s3.attempts.get();

            assertThatThrownBy(() -> client.deleteObjects(r -> r.bucket(BUCKET).overrideConfiguration(token(6))
                    .delete(d -> d.objects(object(a), object(b), object(c)))))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(412);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("FencingTokenStale");
                        assertThat(e.awsErrorDetails().errorMessage()).contains("below the fence 7");
                    });
            assertThat(s3.attempts.get() - attemptsBefore).isEqualTo(1);
            assertThat(s3.store.object(BUCKET, a)).hasValue(a);
            assertThat(s3.store.object(BUCKET, b)).hasValue(b);
            assertThat(s3.store.object(BUCKET, c)).hasValue("newer");

            var deleted = client.deleteObjects(r -> r.bucket(BUCKET).overrideConfiguration(token(6))
                    .delete(d -> d.objects(object(a), object(b))));
            assertThat(deleted.deleted()).hasSize(2);
            assertThat(s3.store.object(BUCKET, a)).isEmpty();
            assertThat(s3.store.object(BUCKET, b)).isEmpty();
            assertThatThrownBy(() -> client.putObject(r -> r.bucket(BUCKET).key(a).overrideConfiguration(token(5)),
                    RequestBody.fromString("after")))
                    .as("the delete raised each key's fence to its token")
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
        }
    }

    private static ObjectIdentifier object(String key) {
        return ObjectIdentifier.builder().key(key).build();
    }
}
