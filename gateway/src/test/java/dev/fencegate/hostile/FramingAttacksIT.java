package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import java.time.Duration;
import java.util.UUID;
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
 * Requests whose framing or meaning a store could read differently from the gateway: each is
 * answered with an error, the connection is closed, and nothing reaches the store.
 */
@ExtendWith(NoNettyLeaks.class)
class FramingAttacksIT {

    private static final String TOKEN = "Fencing-Token: 5\r\n";
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(FramingAttacksIT.class.getSimpleName());
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    static Stream<Arguments> hostileHeads() {
        String put = "PUT /b/" + UUID.randomUUID() + " HTTP/1.1\r\nHost: x\r\n" + TOKEN;
        return Stream.of(
                Arguments.of("Content-Length with Transfer-Encoding", put + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("duplicate Content-Length", put + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400),
                Arguments.of("Content-Length list", put + "Content-Length: 3, 3\r\n\r\nabc", 400),
                // Under HTTP/1.0 Netty's decoder does not check repeated fields: it keeps the first value.
                Arguments.of("two Content-Lengths in HTTP/1.0", "PUT /b/" + UUID.randomUUID() + " HTTP/1.0\r\nHost: x\r\n" + TOKEN
                        + "Content-Length: 3\r\nContent-Length: 62\r\n\r\nabc", 400),
                Arguments.of("duplicate Content-Length in HTTP/1.0", "PUT /b/" + UUID.randomUUID() + " HTTP/1.0\r\nHost: x\r\n" + TOKEN
                        + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400),
                Arguments.of("Content-Length list in HTTP/1.0", "PUT /b/" + UUID.randomUUID() + " HTTP/1.0\r\nHost: x\r\n" + TOKEN
                        + "Content-Length: 3, 62\r\n\r\nabc", 400),
                Arguments.of("signed Content-Length", put + "Content-Length: +3\r\n\r\nabc", 400),
                Arguments.of("Content-Length not a number", put + "Content-Length: 3x\r\n\r\nabc", 400),
                Arguments.of("gzip, chunked", put + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("chunked, gzip", put + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("identity", put + "Transfer-Encoding: identity\r\n\r\n", 400),
                Arguments.of("chunked twice", put + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("HTTP/1.0 with Transfer-Encoding", "PUT /b/k HTTP/1.0\r\nHost: x\r\n" + TOKEN + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("obs-fold in Content-Length", put + "Content-Length: 1\r\n 0\r\n\r\nx", 400),
                Arguments.of("obs-fold as first header line", "PUT /b/k HTTP/1.1\r\n X-A: b\r\nHost: x\r\n" + TOKEN + "Content-Length: 0\r\n\r\n", 400),
                Arguments.of("whitespace before a colon", put + "Content-Length : 0\r\n\r\n", 400),
                Arguments.of("bare LF line endings", "PUT /b/k HTTP/1.1\nHost: x\n" + TOKEN.replace("\r", "") + "Content-Length: 0\n\n", 400),
                Arguments.of("one bare LF", put + "X-A: a\nContent-Length: 0\r\n\r\n", 400),
                Arguments.of("bare CR", put + "X-A: a\rX-B: b\r\nContent-Length: 0\r\n\r\n", 400),
                Arguments.of("control character in a value", put + "X-A: a\u0001b\r\nContent-Length: 0\r\n\r\n", 400),
                Arguments.of("NUL in a value", put + "X-A: a\u0000b\r\nContent-Length: 0\r\n\r\n", 400),
                Arguments.of("DEL in a value", put + "X-A: a\u007fb\r\nContent-Length: 0\r\n\r\n", 400),
                Arguments.of("malformed chunk size", put + "Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("chunk size with 0x", put + "Transfer-Encoding: chunked\r\n\r\n0x3\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("chunk size overflow", put + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("chunk extension ended by bare LF", put + "Transfer-Encoding: chunked\r\n\r\n3;a=b\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("chunk extension with a quoted CRLF", put + "Transfer-Encoding: chunked\r\n\r\n3;a=\"b\r\nc\"\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("Upgrade: websocket", "GET /b/k HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 400),
                Arguments.of("CONNECT", "CONNECT 127.0.0.1:5432 HTTP/1.1\r\nHost: 127.0.0.1:5432\r\n" + TOKEN + "\r\n", 405),
                Arguments.of("Connection naming Fencing-Token", put + "Connection: Fencing-Token\r\nContent-Length: 0\r\n\r\n", 400),
                Arguments.of("Connection naming Content-Length", put + "Connection: close, Content-Length\r\nContent-Length: 0\r\n\r\n", 400),
                Arguments.of("absolute-form write", "PUT http://x/b/k HTTP/1.1\r\nHost: x\r\n" + TOKEN + "Content-Length: 0\r\n\r\n", 400),
                Arguments.of("absolute-form read", "GET http://evil.example/b/k HTTP/1.1\r\nHost: x\r\n\r\n", 400),
                Arguments.of("asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 400),
                Arguments.of("two Host headers", put + "Host: y\r\nContent-Length: 0\r\n\r\n", 400),
                Arguments.of("no Host in HTTP/1.1", "PUT /b/k HTTP/1.1\r\n" + TOKEN + "Content-Length: 0\r\n\r\n", 400),
                // Forwarded as HTTP/1.1, it would be refused by the store after its fence was raised.
                Arguments.of("no Host in HTTP/1.0", "PUT /b/" + UUID.randomUUID() + " HTTP/1.0\r\nConnection: keep-alive\r\n" + TOKEN
                        + "Content-Length: 0\r\n\r\n", 400),
                Arguments.of("Upgrade: h2c, then websocket", "GET /b/k HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nUpgrade: websocket\r\n\r\n", 400),
                Arguments.of("Expect: 100-continue, then another", put + "Expect: 100-continue\r\nExpect: foo\r\nContent-Length: 0\r\n\r\n", 417),
                Arguments.of("Expect: 100-continue twice", put + "Expect: 100-continue\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n", 417),
                Arguments.of("HTTP/1.2", "PUT /b/k HTTP/1.2\r\nHost: x\r\n" + TOKEN + "Content-Length: 0\r\n\r\n", 505),
                Arguments.of("HTTP/0.9", "GET /b/k\r\n\r\n", 400));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileHeads")
    void isRefusedTheConnectionClosedAndNothingForwarded(String name, String request, int status) throws Exception {
        int before = gateway.store.requestCount();
        try (RawHttp raw = gateway.raw()) {
            String response = raw.send(request).readResponse();
            assertThat(RawHttp.status(response)).as(name).isEqualTo(status);
            assertThat(response.toLowerCase()).contains("connection: close");
            assertThat(raw.closedByPeer()).as("closed").isTrue();
        }
        assertThat(gateway.store.requestCount()).as("requests at the store").isEqualTo(before);
    }

    /**
     * The decoder reports a malformed chunk after the head went to the store as an empty last
     * content with a failed result. Relayed, it would end the request at the store as if complete.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("badChunks")
    void aMalformedChunkAfterForwardingStartedClosesBothSidesAndTheStoreAppliesNothing(String name, String badChunk) throws Exception {
        String path = "/b/" + UUID.randomUUID();
        int before = gateway.store.requestCount();
        try (RawHttp raw = gateway.raw()) {
            raw.send("PUT " + path + " HTTP/1.1\r\nHost: x\r\n" + TOKEN + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> gateway.store.requestCount() == before + 1);
            String response = raw.send(badChunk).readResponse();
            assertThat(RawHttp.status(response)).as(name).isEqualTo(400);
            assertThat(raw.closedByPeer()).isTrue();
        }
        Thread.sleep(300);
        assertThat(gateway.store.appliedTo(path)).as("applied at the store").isEmpty();
        assertThat(gateway.store.object(path)).isEmpty();
    }

    static Stream<Arguments> badChunks() {
        return Stream.of(
                Arguments.of("bad chunk size", "zz\r\nabc\r\n0\r\n\r\n"),
                Arguments.of("chunk extension bare LF", "3;a\nabc\r\n0\r\n\r\n"),
                Arguments.of("missing CRLF after data", "3\r\ndefXX0\r\n\r\n"),
                Arguments.of("bad trailer", "0\r\nBad Name: 9\r\n\r\n"));
    }

    @Test
    void aFencingTokenInATrailerIsNeverRead() throws Exception {
        int before = gateway.store.requestCount();
        try (RawHttp raw = gateway.raw()) {
            String response = raw.send("PUT /b/" + UUID.randomUUID() + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n0\r\nFencing-Token: 9\r\n\r\n").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(428);
        }
        assertThat(gateway.store.requestCount()).isEqualTo(before);
    }
}
