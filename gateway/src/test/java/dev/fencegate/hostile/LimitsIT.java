package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.HostPort;
import dev.fencegate.config.Limits;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every limit is answered with its status and a closed connection; nothing past a limit completes at the store. */
@ExtendWith(NoNettyLeaks.class)
class LimitsIT {

    private static final int MAX_BODY = 64 * 1024;
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> new GatewayConfig(
                new HostPort("127.0.0.1", 0), new HostPort("127.0.0.1", 0), upstream,
                TestPostgres.config(TestPostgres.newSchema(LimitsIT.class.getSimpleName())),
                Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(5),
                new Limits(8_192, 16_384, MAX_BODY), SafetyConfig.defaults(), 2));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static String path() {
        return "/b/" + UUID.randomUUID();
    }

    @Test
    void aRequestLineOverTheLimitGets414AndAClose() throws IOException {
        assertRefusedAndClosed("GET /b/" + "a".repeat(9_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414);
    }

    @Test
    void aHeaderBlockOverTheLimitGets431AndAClose() throws IOException {
        assertRefusedAndClosed("PUT " + path() + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nX-Big: " + "a".repeat(17_000)
                + "\r\nContent-Length: 0\r\n\r\n", 431);
    }

    @Test
    void moreThanAHundredHeaderFieldsGet431AndAClose() throws IOException {
        StringBuilder request = new StringBuilder("PUT " + path() + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\n");
        for (int i = 0; i < 100; i++) {
            request.append("X-H").append(i).append(": v\r\n");
        }
        assertRefusedAndClosed(request.append("Content-Length: 0\r\n\r\n").toString(), 431);
    }

    @Test
    void aContentLengthOverTheBodyLimitGets413BeforeAnythingIsRead() throws IOException {
        assertRefusedAndClosed("PUT " + path() + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nContent-Length: "
                + (MAX_BODY + 1) + "\r\n\r\n", 413);
    }

    @Test
    void aChunkedBodyGrowingPastTheLimitGets413AndTheStoreNeverSeesItComplete() throws Exception {
        String path = path();
        try (RawHttp raw = gateway.raw()) {
            raw.send("PUT " + path + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nTransfer-Encoding: chunked\r\n\r\n");
            String chunk = Integer.toHexString(16 * 1024) + "\r\n" + "c".repeat(16 * 1024) + "\r\n";
            for (int i = 0; i < 3; i++) {
                raw.send(chunk);
            }
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> gateway.store.requestCount() > 0);
            String response = raw.send(chunk + chunk + "0\r\n\r\n").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(413);
            assertThat(raw.closedByPeer()).isTrue();
        }
        Thread.sleep(300);
        assertThat(gateway.store.appliedTo(path)).isEmpty();
    }

    @Test
    void aBodyWithinTheLimitPasses() {
        String path = path();
        assertThat(gateway.put(path, 1, "b".repeat(MAX_BODY)).statusCode()).isEqualTo(201);
        assertThat(gateway.store.object(path)).hasValueSatisfying(body -> assertThat(body).hasSize(MAX_BODY));
    }

    /**
     * One request at a time per connection: the gateway reads the next only after answering the
     * previous, so pipelined requests wait in the socket, not in the gateway's memory.
     */
    @Test
    void fiftyPipelinedRequestsAreAnsweredInOrderOnOneConnection() throws Exception {
        String base = path();
        StringBuilder pipeline = new StringBuilder();
        for (int i = 0; i < 25; i++) {
            pipeline.append("PUT ").append(base).append('/').append(i).append(" HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\n")
                    .append("Content-Length: ").append(Integer.toString(i).length()).append("\r\n\r\n").append(i);
        }
        for (int i = 0; i < 25; i++) {
            pipeline.append("GET ").append(base).append('/').append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        try (RawHttp raw = gateway.raw()) {
            raw.send(pipeline.toString());
            for (int i = 0; i < 25; i++) {
                assertThat(RawHttp.status(raw.readResponse())).as("PUT %d", i).isEqualTo(201);
            }
            for (int i = 0; i < 25; i++) {
                String response = raw.readResponse();
                assertThat(RawHttp.status(response)).as("GET %d", i).isEqualTo(200);
                assertThat(response).as("GET %d", i).endsWith("\r\n\r\n" + i);
            }
        }
    }

    private static void assertRefusedAndClosed(String request, int status) throws IOException {
        int before = gateway.store.requestCount();
        try (RawHttp raw = gateway.raw()) {
            String response = raw.send(request).readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(status);
            assertThat(raw.closedByPeer()).isTrue();
        }
        assertThat(gateway.store.requestCount()).isEqualTo(before);
    }
}
