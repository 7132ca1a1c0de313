package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.CapturingUpstream;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the client sees when the store fails, and what the gateway forwards when it does not. */
@ExtendWith(NoNettyLeaks.class)
class StoreFailureIT {

    @Test
    void storeRefusingConnectionsGives502() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        try (Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + closedPort),
                TestPostgres.config(TestPostgres.newSchema("store_down")), Duration.ofSeconds(5)));
             RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("PUT /b/k HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nContent-Length: 1\r\n\r\nx").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(502);
            assertThat(response).contains("store-unreachable")
                    .as("in the system's words, not the native transport's").contains("store connection failed: Connection refused")
                    .doesNotContain("finishConnect").doesNotContain(":" + closedPort);
        }
    }

    /**
     * A store named by a host name is looked up without blocking the event loops
     * ({@code StoreNameLookupTest}): from the hosts file here. A name nobody knows is a 502 like a
     * refused connection, and nothing reaches a store.
     */
    @Test
    void aStoreNamedByAHostNameIsReachedAndANameThatDoesNotResolveGives502() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream ->
                GatewayHarness.config(URI.create("http://localhost:" + upstream.getPort()),
                        TestPostgres.config(TestPostgres.newSchema("store_named")), Duration.ofSeconds(5)))) {
            assertThat(gateway.put("/b/named", 1, "by name").statusCode()).isEqualTo(201);
            assertThat(gateway.store.object("/b/named")).hasValueSatisfying(body ->
                    assertThat(new String(body, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("by name"));
        }
        // .invalid never resolves (RFC 6761).
        try (Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://store.invalid:9000"),
                TestPostgres.config(TestPostgres.newSchema("store_unnamed")), Duration.ofSeconds(5)));
             RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("PUT /b/k HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nContent-Length: 1\r\n\r\nx").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(502);
            assertThat(response).contains("store-unreachable");
        }
    }

    @Test
    void storeNotAnsweringInTimeGives504() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback()
                        .withWriteDelay(Duration.ofSeconds(5), Duration.ofSeconds(5)),
                TestPostgres.config(TestPostgres.newSchema("store_slow")), Duration.ofMillis(500))) {
            HttpResponse<String> response = gateway.put("/b/slow", 1, "x");
            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(response.body()).contains("store-timeout");
        }
    }

    @Test
    void headersPassUnchangedHostIncludedAndHopByHopHeadersAreStripped() throws Exception {
        try (CapturingUpstream upstream = new CapturingUpstream();
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + upstream.port()),
                     TestPostgres.config(TestPostgres.newSchema("headers")), Duration.ofSeconds(5)));
             RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("PUT /bucket/key?x-id=PutObject HTTP/1.1\r\n"
                    + "Host: bucket.s3.example:9000\r\n"
                    + "Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261129/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc\r\n"
                    + "X-Amz-Date: 20261129T000000Z\r\n"
                    + "Fencing-Token: 12\r\n"
                    + "Connection: keep-alive, X-Hop\r\n"
                    + "X-Hop: gone\r\n"
                    + "Keep-Alive: timeout=5\r\n"
                    + "Content-Length: 2\r\n\r\nhi").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(200);

            String forwarded = upstream.nextHead(2_000);
            assertThat(forwarded).startsWith("PUT /bucket/key?x-id=PutObject HTTP/1.1\r\n");
            assertThat(forwarded).contains("Host: bucket.s3.example:9000\r\n")
                    .contains("Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261129/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc\r\n")
                    .contains("X-Amz-Date: 20261129T000000Z\r\n")
                    .contains("Fencing-Token: 12\r\n")
                    .contains("Content-Length: 2\r\n");
            assertThat(forwarded.toLowerCase()).doesNotContain("x-hop").doesNotContain("keep-alive: timeout");
        }
    }

    /**
     * A store that merges a request's trailer fields into its header section (Apache with
     * MergeTrailers On) would read them as headers the gateway never checked: a Depth replacing
     * the gateway's, another Host, a token. They are not passed on; the body is.
     */
    @Test
    void aRequestsTrailerFieldsAreNotPassedOnToTheStore() throws Exception {
        try (CapturingUpstream upstream = new CapturingUpstream();
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + upstream.port()),
                     TestPostgres.config(TestPostgres.newSchema("trailers")), Duration.ofSeconds(5)));
             RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("PUT /bucket/key HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 12\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n0\r\nDepth: infinity\r\nFencing-Token: 99\r\nX-Checksum: 1\r\n\r\n").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(200);

            assertThat(upstream.nextHead(2_000)).contains("Transfer-Encoding: chunked\r\n");
            assertThat(upstream.nextBody(2_000)).isEqualTo("3\r\nabc\r\n0\r\n\r\n");
        }
    }
}
