package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which requests are DeleteObjects, which Host headers name a bucket. */
class S3RequestsTest {

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "POST, /b?delete, true",
        "POST, /b?delete=, true",
        "POST, /b/?x-id=DeleteObjects&delete, true",
        "POST, /b?%64elete, true",
        "POST, /b?deleted, false",
        "POST, /b/k?uploads, false",
        "POST, /b, false",
        "PUT, /b?delete, false",
        "GET, /b?delete, false"})
    void deleteObjectsIsAPostWithADeleteParameterHoweverSpelled(String method, String target, boolean expected) {
        assertThat(S3Requests.isDeleteObjects(method, target)).isEqualTo(expected);
    }

    @Test
    void theBucketPathIsExactlyOneSegment() {
        assertThat(S3Requests.bucketPath("/b?delete")).hasValue("/b");
        assertThat(S3Requests.bucketPath("/b/?delete")).hasValue("/b");
        assertThat(S3Requests.bucketPath("/b/k?delete")).isEmpty();
        assertThat(S3Requests.bucketPath("/?delete")).isEmpty();
        assertThat(S3Requests.bucketPath("b?delete")).isEmpty();
    }

    @Test
    void aHostUnderABaseDomainNamesABucket() {
        VirtualHosts hosts = new VirtualHosts(List.of("localhost", "S3.Example"));

        assertThat(hosts.bucket("photos.localhost:9000")).hasValue("photos");
        assertThat(hosts.bucket("My.Photos.s3.example.")).hasValue("my.photos");
        assertThat(hosts.bucket("localhost:9000")).isEqualTo(Optional.empty());
        assertThat(hosts.bucket("s3.example")).isEmpty();
        assertThat(hosts.bucket("evillocalhost")).isEmpty();
        assertThat(hosts.bucket("127.0.0.1:9000")).isEmpty();
        assertThat(hosts.bucket("[::1]:9000")).isEmpty();
        assertThat(hosts.bucket(null)).isEmpty();
    }
}
