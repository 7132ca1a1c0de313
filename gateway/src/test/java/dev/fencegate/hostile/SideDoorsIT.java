package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.StoreKind;
import dev.fencegate.s3.S3Store;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Writes that name their object somewhere the path does not, tried on the wire against a real S3
 * store (S3Proxy, unsigned requests): browser-form uploads, and multipart steps when the gateway
 * cannot read who owns an upload id.
 */
@ExtendWith(NoNettyLeaks.class)
class SideDoorsIT {

    private static final String BUCKET = "doors";
    private static S3Store store;
    private static Gateway gateway;
    private static DatabaseConfig database;
    /** S3Proxy takes browser-form uploads only when it checks signatures: the policy's, here. */
    private static S3Store signingStore;
    private static Gateway signingGateway;

    @BeforeAll
    static void start() throws InterruptedException {
        store = S3Store.anonymous("localhost");
        store.createBucket(BUCKET);
        database = TestPostgres.config(TestPostgres.newSchema(SideDoorsIT.class.getSimpleName()));
        gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database, Duration.ofSeconds(10)));
        signingStore = S3Store.authenticated();
        signingStore.createBucket(BUCKET);
        signingGateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + signingStore.port()),
                TestPostgres.config(TestPostgres.newSchema(SideDoorsIT.class.getSimpleName())), Duration.ofSeconds(10)));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        store.close();
        signingGateway.close();
        signingStore.close();
    }

    /**
     * S3Proxy's file store writes a PUT's body to {@code <key>-<random UUID>} beside the object and
     * renames it onto the object when the body ends: a stale write of that name, fenced as an object
     * of its own, while the holder's PUT is under way would become the holder's object. It is refused,
     * and the object is the holder's.
     */
    @Test
    void aStaleWriteOfTheNameAPutInProgressIsWrittenToIsRefusedAndTheObjectIsTheHolders() throws Exception {
        Path folder = store.directory().resolve(BUCKET);
        Pattern temporary = Pattern.compile("in-progress-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        try (RawHttp holder = RawHttp.connect(gateway.port())) {
            holder.send("PUT /" + BUCKET + "/in-progress HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 5\r\n"
                    + "Content-Length: 12\r\n\r\nholder");
            String name = Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> temporaryName(folder, temporary), java.util.Objects::nonNull);

            // The name itself, and the name as a folder, which S3Proxy makes at the temporary file's
            // path, writing the request's metadata onto that file.
            for (String target : new String[] {name, name + "/"}) {
                try (RawHttp stale = RawHttp.connect(gateway.port())) {
                    String answer = stale.send("PUT /" + BUCKET + "/" + target + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 1\r\n"
                            + "x-amz-meta-written-by: stale\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").readResponse();
                    assertThat(RawHttp.status(answer)).as(target).isEqualTo(400);
                    assertThat(answer).contains("unfenceable-write");
                }
            }
            holder.send("'s own");
            assertThat(RawHttp.status(holder.readResponse())).isEqualTo(200);
        }
        assertThat(store.object(BUCKET, "in-progress")).contains("holder's own");
        try (RawHttp head = RawHttp.connect(store.port())) {
            assertThat(head.send("HEAD /" + BUCKET + "/in-progress HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .readHead()).doesNotContainIgnoringCase("written-by");
        }
    }

    private static String temporaryName(Path folder, Pattern temporary) throws IOException {
        try (Stream<Path> files = java.nio.file.Files.list(folder)) {
            return files.map(file -> file.getFileName().toString()).filter(name -> temporary.matcher(name).matches())
                    .findFirst().orElse(null);
        }
    }

    /**
     * A browser-form upload of {@code data} to {@code key}, signed with a V2 policy, with the
     * given target and Content-Type. With {@code keyAgain}, a second key field follows the file:
     * S3Proxy keeps the last, so the key is known only once the whole body has been read.
     */
    private static String formUpload(String target, String contentType, String key, String data, String keyAgain) throws Exception {
        String conditions = "[{\"bucket\":\"" + BUCKET + "\"},[\"starts-with\",\"$key\",\"\"]]";
        String policy = Base64.getEncoder().encodeToString(("{\"expiration\":\"2099-01-01T00:00:00Z\",\"conditions\":"
                + conditions + "}").getBytes(StandardCharsets.UTF_8));
        Mac hmac = Mac.getInstance("HmacSHA1");
        hmac.init(new SecretKeySpec(S3Store.CREDENTIAL.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        String signature = Base64.getEncoder().encodeToString(hmac.doFinal(policy.getBytes(StandardCharsets.UTF_8)));
        String body = field("key", key) + field("AWSAccessKeyId", S3Store.IDENTITY) + field("policy", policy)
                + field("signature", signature)
                + "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.txt\"\r\nContent-Type: text/plain\r\n\r\n"
                + data + "\r\n" + (keyAgain == null ? "" : field("key", keyAgain)) + "--B--\r\n";
        return "POST " + target + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 1\r\nContent-Type: " + contentType
                + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    private static String field(String name, String value) {
        return "--B\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
    }

    static Stream<Arguments> formUploads() {
        return Stream.of(
                Arguments.of("/" + BUCKET, "multipart/form-data; boundary=B"),
                Arguments.of("/" + BUCKET + "/", "multipart/form-data; boundary=B"),
                Arguments.of("/" + BUCKET + "?x-id=PostObject", "MULTIPART/Form-Data; boundary=B"),
                Arguments.of("/" + BUCKET, "multipart/form-data;boundary=B"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("formUploads")
    void aBrowserFormUploadIsRefusedAndTheStoreWritesNothing(String target, String contentType) throws Exception {
        String key = "victim." + UUID.randomUUID();
        String decoy = "decoy." + UUID.randomUUID();
        String direct;
        try (RawHttp raw = RawHttp.connect(signingStore.port())) {
            direct = raw.send(formUpload("/" + BUCKET, "multipart/form-data; boundary=B", decoy, "current", key)).readResponseWithBody();
        }
        assertThat(signingStore.object(BUCKET, key)).as("sent directly, the store writes the last key field's object: " + direct)
                .hasValue("current");

        for (String keyAgain : new String[] {null, key}) {
            try (RawHttp raw = RawHttp.connect(signingGateway.port())) {
                String response = raw.send(formUpload(target, contentType, keyAgain == null ? key : decoy, "stale", keyAgain))
                        .readResponse();
                assertThat(RawHttp.status(response)).isEqualTo(400);
                assertThat(response).contains("urn:fencegate:problem:bucket-post");
            }
        }
        assertThat(signingStore.object(BUCKET, key)).hasValue("current");
        assertThat(signingStore.object(BUCKET, decoy)).isEmpty();
    }

    /**
     * An unsigned POST /bucket?delete whose body is a Delete document for a decoy key and, after its
     * root, a browser form naming another key. S3Proxy serves every unsigned bucket POST as a form
     * upload, whatever its query: sent straight to it, the form's key is written. Through the
     * gateway, which would fence only the decoy, it is refused and the key keeps its data.
     */
    @Test
    void aDeleteObjectsWhoseBodyIsAlsoABrowserFormIsRefusedAndTheFormsKeyKeepsItsData() throws Exception {
        String key = "victim." + UUID.randomUUID();
        String decoy = "decoy." + UUID.randomUUID();
        String form = formUpload("/" + BUCKET, "multipart/form-data; boundary=B", key, "stale", null);
        String body = "<Delete><Object><Key>" + decoy + "</Key></Object></Delete><?x\r\n" + form.substring(form.indexOf("\r\n\r\n") + 4) + "?>";
        String deleteObjects = "POST /" + BUCKET + "?delete HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 1\r\n"
                + "Content-Type: multipart/form-data; boundary=B\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body;
        try (RawHttp raw = RawHttp.connect(signingStore.port())) {
            raw.send(deleteObjects).readResponseWithBody();
        }
        assertThat(signingStore.object(BUCKET, key)).as("sent straight to the store, the form's key is written").hasValue("stale");
        try (RawHttp raw = RawHttp.connect(signingStore.port())) {
            raw.send(formUpload("/" + BUCKET, "multipart/form-data; boundary=B", key, "current", null)).readResponseWithBody();
        }
        try (RawHttp raw = RawHttp.connect(signingGateway.adminPort())) {
            String raised = raw.send("POST /fences/%2F" + BUCKET + "%2F" + key + "?token=10 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Length: 0\r\nConnection: close\r\n\r\n").readResponseWithBody();
            assertThat(RawHttp.status(raised)).as(raised).isEqualTo(200);
        }

        String answer;
        try (RawHttp raw = RawHttp.connect(signingGateway.port())) {
            answer = raw.send(deleteObjects).readResponseWithBody();
        }
        assertThat(RawHttp.status(answer)).as(answer).isEqualTo(400);
        assertThat(answer).contains("urn:fencegate:problem:unfenceable-write");
        assertThat(signingStore.object(BUCKET, key)).hasValue("current");
    }

    @Test
    void aMultipartStepFailsClosedWhileUploadOwnersCannotBeRead() throws Exception {
        String key = "/" + BUCKET + "/parts." + UUID.randomUUID();
        String id = createUpload(gateway.port(), key, "Fencing-Token: 4\r\n");
        String part = "PUT " + key + "?partNumber=1&uploadId=" + id + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 4\r\n"
                + "Content-Length: 4\r\n\r\npart";
        sql("ALTER TABLE " + database.schema() + ".multipart_upload RENAME TO multipart_upload_away");
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            String refused = raw.send(part).readResponse();
            assertThat(RawHttp.status(refused)).isEqualTo(503);
            assertThat(refused).contains("urn:fencegate:problem:fence-unavailable");
        } finally {
            sql("ALTER TABLE " + database.schema() + ".multipart_upload_away RENAME TO multipart_upload");
        }
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            assertThat(RawHttp.status(raw.send(part).readResponse())).isEqualTo(200);
        }
    }

    /**
     * Under {@code http} the store may be S3 after all, which may find an upload by its id alone,
     * whatever key the request names: an abort of the holder's upload sent as a write of another
     * key, a new resource any token passes, went to the store. A multipart request is refused under
     * {@code http}, and the holder completes its upload.
     */
    @Test
    void underHttpAStaleAbortOfAnotherObjectsUploadIsRefusedAndTheUploadLives() throws Exception {
        String key = "/" + BUCKET + "/upload." + UUID.randomUUID();
        String id = createUpload(store.port(), key, "");
        String etag;
        try (RawHttp direct = RawHttp.connect(store.port())) {
            String part = direct.send("PUT " + key + "?partNumber=1&uploadId=" + id + " HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Length: 11\r\nConnection: close\r\n\r\nholder-part").readResponse();
            Matcher matcher = Pattern.compile("(?i)\r\nETag: *(\\S+)").matcher(part);
            assertThat(matcher.find()).as(part).isTrue();
            etag = matcher.group(1);
        }
        GatewayConfig base = GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()),
                TestPostgres.config(TestPostgres.newSchema(SideDoorsIT.class.getSimpleName() + "_http")), Duration.ofSeconds(10));
        try (Gateway plain = Gateway.start(new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(),
                base.limits().withStoreKind(StoreKind.HTTP, "localhost"), base.safety(), base.ioThreads()))) {
            try (RawHttp stale = RawHttp.connect(plain.port())) {
                String answer = stale.send("DELETE /" + BUCKET + "/other." + UUID.randomUUID() + "?uploadId=" + id
                        + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 1\r\nConnection: close\r\n\r\n").readResponse();
                assertThat(RawHttp.status(answer)).as(answer).isEqualTo(400);
                assertThat(answer).contains("urn:fencegate:problem:unfenceable-write");
            }
        }
        // ListParts still answers after an abort (S3Proxy keeps the part files); completing does not.
        String complete = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + etag
                + "</ETag></Part></CompleteMultipartUpload>";
        try (RawHttp direct = RawHttp.connect(store.port())) {
            String completed = direct.send("POST " + key + "?uploadId=" + id + " HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Length: " + complete.length() + "\r\nConnection: close\r\n\r\n" + complete).readToClose();
            assertThat(RawHttp.status(completed)).as("the holder completes its upload: " + completed).isEqualTo(200);
        }
        assertThat(store.object(BUCKET, key.substring(BUCKET.length() + 2))).hasValue("holder-part");
    }

    /**
     * S3Proxy reads request parameters from a form-encoded body as from the query, so a PUT of a
     * bucket with the body {@code acl=} is PutBucketAcl: a change of the bucket's configuration,
     * which spelled {@code ?acl} is refused.
     */
    @Test
    void aFormEncodedWriteToABucketIsRefusedAndTheBucketsAclStaysAsItWas() throws Exception {
        String bucket = "/formacl" + Long.toHexString(System.nanoTime());
        assertThat(write(bucket, 1, "")).as("CreateBucket, fenced as the bucket").isEqualTo(200);
        String before = atTheStore(bucket + "?acl");

        String answer;
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            answer = raw.send("PUT " + bucket + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 1\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\nx-amz-acl: public-read-write\r\n"
                    + "Content-Length: 4\r\nConnection: close\r\n\r\nacl=").readResponseWithBody();
        }

        assertThat(RawHttp.status(answer)).isEqualTo(400);
        assertThat(answer).contains("unfenceable-write");
        assertThat(atTheStore(bucket + "?acl")).isEqualTo(before);
    }

    /**
     * CreateBucket takes an ACL (or grants, object lock, ownership) in its headers, as PutBucketAcl
     * takes it in {@code ?acl}: sent straight to the store, the bucket is created writable by
     * anyone; through the gateway the creation is refused and no bucket is made.
     */
    @Test
    void aBucketCreatedWithConfigurationInItsHeadersIsRefusedAndNotCreated() throws Exception {
        String request = " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 1\r\nx-amz-acl: public-read-write\r\n"
                + "Content-Length: 0\r\nConnection: close\r\n\r\n";
        String direct = "hdrdirect" + Long.toHexString(System.nanoTime());
        try (RawHttp raw = RawHttp.connect(store.port())) {
            assertThat(RawHttp.status(raw.send("PUT /" + direct + request).readResponseWithBody())).isEqualTo(200);
        }
        assertThat(atTheStore("/" + direct + "?acl")).as("the store takes the header as the bucket's ACL").contains("AllUsers");

        String bucket = "hdracl" + Long.toHexString(System.nanoTime());
        String answer;
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            answer = raw.send("PUT /" + bucket + request).readResponseWithBody();
        }

        assertThat(RawHttp.status(answer)).as(answer).isEqualTo(400);
        assertThat(answer).contains("unfenceable-write");
        assertThat(store.directory().resolve(bucket)).doesNotExist();
    }

    /**
     * S3Proxy reads {@code uploadId} and {@code partNumber} from a form-encoded PUT's body too: the
     * PUT of one's own object would be a step of another object's upload, past the check that an
     * upload id goes with its own object (which the same id in the query meets).
     */
    @Test
    void aFormEncodedPutOfAnObjectCannotCarryAnotherObjectsUploadId() throws Exception {
        String victim = "victim." + UUID.randomUUID();
        String own = "own." + UUID.randomUUID();
        String created;
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            created = raw.send("POST /" + BUCKET + "/" + victim + "?uploads HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 7\r\n"
                    + "Content-Length: 0\r\nConnection: close\r\n\r\n").readResponseWithBody();
        }
        Matcher uploadId = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(created);
        assertThat(uploadId.find()).as(created).isTrue();
        String id = uploadId.group(1);
        String form = "uploadId=" + java.net.URLEncoder.encode(id, StandardCharsets.UTF_8) + "&partNumber=1";

        String answer;
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            answer = raw.send("PUT /" + BUCKET + "/" + own + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 1\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + form.length()
                    + "\r\nConnection: close\r\n\r\n" + form).readResponseWithBody();
        }

        assertThat(RawHttp.status(answer)).isEqualTo(400);
        assertThat(answer).contains("unfenceable-write");
        try (Stream<java.nio.file.Path> files = java.nio.file.Files.list(store.directory().resolve(BUCKET))) {
            assertThat(files.map(file -> file.getFileName().toString())).noneMatch(name -> name.startsWith(".mpus-" + id + "-" + own));
        }
        assertThat(store.object(BUCKET, own)).isEmpty();
    }

    /** The body of a GET straight at the store. */
    private static String atTheStore(String target) throws IOException {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", store.port())) {
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            String all = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(RawHttp.status(all)).as("GET %s at the store", target).isEqualTo(200);
            return all.substring(all.indexOf("\r\n\r\n") + 4);
        }
    }

    private static int write(String target, long token, String body) throws IOException {
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            return RawHttp.status(raw.send("PUT " + target + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: " + token
                    + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body).readResponse());
        }
    }

    /** CreateMultipartUpload of {@code key} through {@code port} (the gateway's, or the store's own), with {@code headers}; the upload id. */
    private static String createUpload(int port, String key, String headers) throws IOException {
        try (RawHttp raw = RawHttp.connect(port)) {
            String created = raw.send("POST " + key + "?uploads HTTP/1.1\r\nHost: localhost\r\n" + headers + "Content-Length: 0\r\n\r\n")
                    .readResponseWithBody();
            assertThat(RawHttp.status(created)).as(created).isEqualTo(200);
            Matcher matcher = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(created);
            assertThat(matcher.find()).as(created).isTrue();
            return matcher.group(1);
        }
    }

    private static void sql(String statement) throws SQLException {
        var server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement sql = connection.createStatement()) {
            sql.execute(statement);
        }
    }
}
