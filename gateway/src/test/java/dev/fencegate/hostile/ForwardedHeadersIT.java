package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.testing.CapturingUpstream;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What reaches the store of headers a client may forge or fold. */
@ExtendWith(NoNettyLeaks.class)
class ForwardedHeadersIT {

    @Test
    void forwardingHeadersFromAnUntrustedClientAreDroppedAndHostPassesUnchanged() throws Exception {
        String forwarded = send("PUT /b/k HTTP/1.1\r\nHost: store.internal:9000\r\nFencing-Token: 3\r\n"
                + "Forwarded: for=10.0.0.1;proto=https\r\nX-Forwarded-For: 10.0.0.1\r\nX-Forwarded-Host: admin.internal\r\n"
                + "X-Forwarded-Proto: https\r\nX-Real-IP: 10.0.0.1\r\nX-Other: kept\r\n"
                // Every X-Forwarded-*, and underscore spellings, which CGI-style servers read as the same variable.
                + "X-Forwarded-Prefix: /admin\r\nX-Forwarded-Uri: /admin/x\r\nX_Forwarded_For: 10.0.0.2\r\nX_Real_IP: 10.0.0.2\r\n"
                + "Content-Length: 2\r\n\r\nhi");

        assertThat(forwarded).contains("Host: store.internal:9000\r\n").contains("X-Other: kept\r\n");
        assertThat(forwarded.toLowerCase().replace('_', '-'))
                .doesNotContain("forwarded:").doesNotContain("x-forwarded-").doesNotContain("x-real-ip");
    }

    /**
     * RFC 9112 5.2 lets a server replace obs-fold with spaces before forwarding; the codec does,
     * so the store gets one plain line and cannot read the header differently.
     */
    @Test
    void anObsFoldedHeaderReachesTheStoreAsOneUnfoldedLine() throws Exception {
        String forwarded = send("PUT /b/k HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\nX-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\nhi");

        assertThat(forwarded).contains("X-Folded: a b\r\n");
    }

    private static String send(String request) throws Exception {
        try (CapturingUpstream upstream = new CapturingUpstream();
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + upstream.port()),
                     TestPostgres.config(TestPostgres.newSchema("forwarded")), Duration.ofSeconds(5)));
             RawHttp raw = RawHttp.connect(gateway.port())) {
            assertThat(RawHttp.status(raw.send(request).readResponse())).isEqualTo(200);
            return upstream.nextHead(2_000);
        }
    }
}
