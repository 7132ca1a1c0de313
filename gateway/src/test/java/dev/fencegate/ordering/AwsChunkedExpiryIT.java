package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.s3.S3Store;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.StoreLink;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * S3Proxy applies an aws-chunked body (what the AWS SDK sends by default) once it has read the
 * data the request declares, before the final chunk and the trailer: a write cut short after its
 * data went out may still be applied. Its outcome is unknown, so the resource stays closed to
 * higher tokens for the upstream timeout, as after a 504, rather than being let go at once.
 */
@ExtendWith(NoNettyLeaks.class)
class AwsChunkedExpiryIT {

    private static final String BUCKET = "chunked";

    @Test
    void anAwsChunkedWriteCutShortAfterItsDataWentOutDoesNotLandAfterAHigherToken() throws Exception {
        String path = "/" + BUCKET + "/report";
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema(AwsChunkedExpiryIT.class.getSimpleName()));
        try (S3Store store = S3Store.anonymous(null);
             StoreLink late = StoreLink.late(store.port())) {
            store.createBucket(BUCKET);
            try (Gateway delayed = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + late.port()), database,
                         Duration.ofSeconds(5)));
                 Gateway direct = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database,
                         Duration.ofSeconds(5)));
                 RawHttp stale = RawHttp.connect(delayed.port())) {
                stale.timeout(30_000);
                // The head and all ten bytes of data go out; the final chunk and trailer are still to come.
                stale.send("PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: 60\r\n"
                        + "x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER\r\nContent-Encoding: aws-chunked\r\n"
                        + "x-amz-decoded-content-length: 10\r\nx-amz-trailer: x-amz-checksum-crc32\r\nContent-Length: 51\r\n\r\n"
                        + "a\r\nSTALE00060\r\n");
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> PausedGatewayIT.fence(database, path) == 60);
                Thread.sleep(300); // the data is handed to the store connection

                // A newer holder raises past it: the stale write's admission is revoked before its end.
                CompletableFuture<HttpResponse<String>> newer = CompletableFuture.supplyAsync(() -> {
                    try {
                        return PausedGatewayIT.putUntilAnswered(direct.port(), path, 70);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> PausedGatewayIT.fence(database, path) == 70);
                stale.send("0\r\nx-amz-checksum-crc32:fboHiA==\r\n\r\n");
                String answer = stale.readResponse();
                assertThat(RawHttp.status(answer)).as(answer).isEqualTo(503);
                assertThat(answer).contains("FencegateAdmissionExpired");

                // The stale write's bytes were on the wire: they reach the store within the upstream timeout.
                try {
                    newer.get(2500, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    // Still held back by the write whose outcome is unknown.
                }
                late.open();
                HttpResponse<String> written = newer.get(30, TimeUnit.SECONDS);
                assertThat(written.statusCode()).as(written.headers() + written.body()).isIn(200, 201, 204);
            }
            Thread.sleep(500);
            assertThat(store.object(BUCKET, "report")).as("what the store holds at the end").hasValue("token 70");
        }
    }
}
