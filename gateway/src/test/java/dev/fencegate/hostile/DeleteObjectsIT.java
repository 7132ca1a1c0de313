package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * DeleteObjects is the one request whose body the gateway reads before deciding: bounded, parsed
 * strictly, every key fenced, then relayed byte for byte. Anything it cannot judge is refused
 * without reaching the store.
 */
@ExtendWith(NoNettyLeaks.class)
class DeleteObjectsIT {

    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(DeleteObjectsIT.class.getSimpleName());
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void anAdmittedBodyIsRelayedUnchangedAndEveryKeysFenceIsRaised() throws Exception {
        String bucket = "/b" + UUID.randomUUID().toString().substring(0, 8);
        String body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + "<Object><Key>x/a b</Key></Object><Object><Key>y&amp;z</Key></Object></Delete>";
        try (RawHttp raw = gateway.raw()) {
            String response = raw.send(post(bucket, 4, body, "")).readResponse();
            assertThat(RawHttp.status(response)).isIn(200, 201, 204);
        }
        assertThat(new String(gateway.store.object(bucket).orElseThrow(), StandardCharsets.UTF_8)).isEqualTo(body);
        assertThat(gateway.fenceRow(bucket + "/x/a%20b")).isEqualTo(4);
        assertThat(gateway.fenceRow(bucket + "/y&z")).isEqualTo(4);
    }

    @Test
    void oneKeyFencedAboveTheTokenRefusesTheWholeRequestWith412() throws Exception {
        String bucket = "/b" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(gateway.put(bucket + "/newer", 9, "v").statusCode()).isEqualTo(201);
        int before = gateway.store.requestCount();
        try (RawHttp raw = gateway.raw()) {
            String response = raw.send(post(bucket, 8, delete("older", "newer"), "")).readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(412);
            assertThat(response).contains(bucket + "/newer");
            // The body was read whole before the refusal: the connection carries the next request.
            String next = raw.send("GET " + bucket + "/newer HTTP/1.1\r\nHost: x\r\n\r\n").readResponse();
            assertThat(RawHttp.status(next)).isEqualTo(200);
        }
        assertThat(gateway.store.requestCount()).isEqualTo(before + 1);
    }

    /**
     * Each key's check raises and names its fence as it is admitted. A request refused for its
     * last key, here a token the issuer also granted to another holder, raised and named the fences
     * of the keys before it: the holder that came first was then refused on a key it held, and a
     * key with no fence got one, though nothing of the request reached the store.
     */
    @Test
    void aDeleteObjectsRefusedForOneKeyRaisesAndNamesNoFenceOfItsOtherKeys() throws Exception {
        String bucket = "/b" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(gateway.put(bucket + "/k1", 6, "A", "v").statusCode()).isEqualTo(201);
        assertThat(gateway.put(bucket + "/k2", 7, "A", "v").statusCode()).isEqualTo(201);
        int before = gateway.store.requestCount();
        try (RawHttp raw = gateway.raw()) {
            String response = raw.send(post(bucket, 7, delete("k0", "k1", "k2"), "Fencing-Holder: C\r\n")).readResponse();
            assertThat(RawHttp.status(response)).as(response).isEqualTo(412);
            assertThat(response).contains(bucket + "/k2");
        }
        assertThat(gateway.store.requestCount()).isEqualTo(before);
        assertThat(gateway.fenceRow(bucket + "/k0")).isEqualTo(-1);
        assertThat(gateway.fenceRow(bucket + "/k1")).isEqualTo(6);
        assertThat(gateway.fenceHolder(bucket + "/k1")).isEqualTo("A");
        assertThat(gateway.put(bucket + "/k1", 7, "A", "w").statusCode()).isIn(201, 204);
    }

    @Test
    void withExpectContinueTheGatewayAsksForTheBodyItMustReadFirst() throws Exception {
        String bucket = "/b" + UUID.randomUUID().toString().substring(0, 8);
        String body = delete("k");
        try (RawHttp raw = gateway.raw()) {
            String interim = raw.send("POST " + bucket + "?delete HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\n"
                    + "Expect: 100-continue\r\nContent-Length: " + body.length() + "\r\n\r\n").readResponse();
            assertThat(RawHttp.status(interim)).isEqualTo(100);
            assertThat(RawHttp.status(raw.send(body).readResponse())).isIn(200, 201, 204);
        }
        assertThat(gateway.fenceRow(bucket + "/k")).isEqualTo(3);
    }

    /**
     * S3 takes 1000 keys of up to 1024 bytes in one DeleteObjects, and SDKs escape quotes and
     * ampersands, so such a batch is well over 1 MiB; it used to get 413.
     */
    @Test
    void aBatchOfAThousandOfTheLongestKeysS3TakesIsFencedAndRelayed() throws Exception {
        String bucket = "/b" + UUID.randomUUID().toString().substring(0, 8);
        String[] keys = new String[1000];
        for (int i = 0; i < keys.length; i++) {
            // 1024 bytes each: "&" written as "&amp;" in the body, as the SDK writes it.
            keys[i] = String.format("%04d", i) + "&amp;".repeat(10) + "k".repeat(1024 - 4 - 10);
        }
        String body = delete(keys);
        assertThat(body.length()).isGreaterThan(1024 * 1024);
        try (RawHttp raw = gateway.raw()) {
            String response = raw.send(post(bucket, 6, body, "")).readResponse();
            assertThat(RawHttp.status(response)).as(response).isIn(200, 201, 204);
        }
        assertThat(new String(gateway.store.object(bucket).orElseThrow(), StandardCharsets.UTF_8)).isEqualTo(body);
        String tail = "&".repeat(10) + "k".repeat(1024 - 4 - 10);
        assertThat(gateway.fenceRow(bucket + "/0000" + tail)).isEqualTo(6);
        assertThat(gateway.fenceRow(bucket + "/0999" + tail)).isEqualTo(6);
    }

    /**
     * A DeleteObjects body of one-byte chunks, pipelined in one write behind a write the fence is
     * asked about: its chunks wait decoded, then are collected one after another. Asking for the
     * next from inside the delivery of the last nested one call per chunk until the stack overflowed.
     */
    @Test
    void aBodyOfOneByteChunksPipelinedInOneWriteIsCollectedFencedAndRelayed() throws Exception {
        String bucket = "/b" + UUID.randomUUID().toString().substring(0, 8);
        String[] keys = new String[300];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = String.format("k%04d", i);
        }
        String body = delete(keys);
        assertThat(body.length()).isGreaterThan(9_000);
        StringBuilder chunks = new StringBuilder();
        for (char c : body.toCharArray()) {
            chunks.append("1\r\n").append(c).append("\r\n");
        }
        try (RawHttp raw = gateway.rawWithWideReads()) {
            raw.send("PUT " + bucket + "/first HTTP/1.1\r\nHost: x\r\nFencing-Token: 5\r\nContent-Length: 1\r\n\r\nv"
                    + "POST " + bucket + "?delete HTTP/1.1\r\nHost: x\r\nFencing-Token: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + chunks + "0\r\n\r\n");
            assertThat(RawHttp.status(raw.readResponse())).isIn(201, 204);
            String response = raw.readResponse();
            assertThat(RawHttp.status(response)).as(response).isIn(200, 201, 204);
        }
        assertThat(new String(gateway.store.object(bucket).orElseThrow(), StandardCharsets.UTF_8)).isEqualTo(body);
        assertThat(gateway.fenceRow(bucket + "/k0000")).isEqualTo(5);
        assertThat(gateway.fenceRow(bucket + "/k0299")).isEqualTo(5);
    }

    @Test
    void aBodyOverEightMebibytesGets413WhetherDeclaredOrStreamed() throws Exception {
        int before = gateway.store.requestCount();
        try (RawHttp raw = gateway.raw()) {
            String response = raw.send("POST /b?delete HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\nContent-Length: "
                    + (8 * 1024 * 1024 + 1) + "\r\n\r\n").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(413);
            assertThat(raw.closedByPeer()).isTrue();
        }
        try (RawHttp raw = gateway.raw()) {
            raw.send("POST /b?delete HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\nTransfer-Encoding: chunked\r\n\r\n");
            String chunk = Integer.toHexString(64 * 1024) + "\r\n" + "<".repeat(64 * 1024) + "\r\n";
            try {
                for (int i = 0; i < 8 * 16 + 1; i++) {
                    raw.send(chunk);
                }
            } catch (java.io.IOException closedMidBody) {
                // the gateway stopped reading at the limit and closed
            }
            String response = raw.readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(413);
        }
        assertThat(gateway.store.requestCount()).isEqualTo(before);
    }

    @Test
    void bodiesItCannotJudgeAreRefusedWith400AndNeverForwarded() throws Exception {
        int before = gateway.store.requestCount();
        String[] bodies = {
            "not xml",
            "<!DOCTYPE Delete [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><Delete><Object><Key>&x;</Key></Object></Delete>",
            "<Delete><Object><Key>a</Key><Key>b</Key></Object></Delete>",
            "<Delete><Object><Key>x/../y</Key></Object></Delete>",
            "<Delete><Object><Key>a//b</Key></Object></Delete>",
            "<Delete></Delete>"};
        for (String body : bodies) {
            try (RawHttp raw = gateway.raw()) {
                String response = raw.send(post("/b", 3, body, "")).readResponse();
                assertThat(RawHttp.status(response)).as(body).isEqualTo(400);
            }
        }
        try (RawHttp raw = gateway.raw()) {
            assertThat(RawHttp.status(raw.send(post("/b/k", 3, delete("k"), "")).readResponse())).as("not a bucket").isEqualTo(400);
        }
        try (RawHttp raw = gateway.raw()) {
            assertThat(RawHttp.status(raw.send(post("/b", 3, delete("k"), "")
                    .replace("Fencing-Token: 3\r\n", "")).readResponse())).as("no token").isEqualTo(428);
        }
        assertThat(gateway.store.requestCount()).isEqualTo(before);
    }

    private static String post(String bucket, long token, String body, String extraHeaders) {
        return "POST " + bucket + "?delete HTTP/1.1\r\nHost: x\r\nFencing-Token: " + token + "\r\n" + extraHeaders
                + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private static String delete(String... keys) {
        StringBuilder xml = new StringBuilder("<Delete>");
        for (String key : keys) {
            xml.append("<Object><Key>").append(key).append("</Key></Object>");
        }
        return xml.append("</Delete>").toString();
    }
}
