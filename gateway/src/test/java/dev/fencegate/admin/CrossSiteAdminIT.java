package dev.fencegate.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With no admin token (the loopback default), a web page in the operator's browser must not be
 * able to raise a fence to the maximum and lock the resource for good: not by a cross-site form,
 * not by a fetch, not through a rebound DNS name. Raw requests as a browser would send them.
 */
@ExtendWith(NoNettyLeaks.class)
class CrossSiteAdminIT {

    private static final String RAISE_TO_MAX = "POST /fences/%2Fb%2F{key}?token=9223372036854775807 HTTP/1.1\r\n";
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(CrossSiteAdminIT.class.getSimpleName());
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void aCrossSiteFormPostCannotRaiseAFence() throws IOException {
        String response = send(RAISE_TO_MAX.replace("{key}", "form") + "Host: 127.0.0.1:9090\r\n"
                + "Origin: https://attacker.example\r\nSec-Fetch-Site: cross-site\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n\r\n");
        assertThat(RawHttp.status(response)).as(response).isEqualTo(403);
        assertThat(response).contains("Origin: https://attacker.example");
        assertThat(gateway.fenceRow("/b/form")).isEqualTo(-1);
    }

    @Test
    void aFormPostFromABrowserThatSendsNoOriginIsStillRefusedByItsContentType() throws IOException {
        String response = send(RAISE_TO_MAX.replace("{key}", "old-browser") + "Host: localhost:9090\r\n"
                + "Content-Type: text/plain\r\nContent-Length: 1\r\n\r\nx");
        assertThat(RawHttp.status(response)).as(response).isEqualTo(415);
        assertThat(gateway.fenceRow("/b/old-browser")).isEqualTo(-1);
    }

    @Test
    void aFetchMarkedCrossSiteIsRefused() throws IOException {
        String response = send(RAISE_TO_MAX.replace("{key}", "fetch") + "Host: 127.0.0.1\r\nSec-Fetch-Site: same-site\r\n"
                + "Content-Length: 0\r\n\r\n");
        assertThat(RawHttp.status(response)).as(response).isEqualTo(403);
        assertThat(gateway.fenceRow("/b/fetch")).isEqualTo(-1);
    }

    @Test
    void aRequestThroughAReboundDnsNameIsRefusedByItsHost() throws IOException {
        String response = send(RAISE_TO_MAX.replace("{key}", "rebound") + "Host: attacker.example:9090\r\n"
                + "Content-Length: 0\r\n\r\n");
        assertThat(RawHttp.status(response)).as(response).isEqualTo(403);
        assertThat(response).contains("Host: attacker.example:9090");
        String read = send("GET /fences/%2Fb%2Frebound HTTP/1.1\r\nHost: attacker.example:9090\r\n\r\n");
        assertThat(RawHttp.status(read)).isEqualTo(403);
        assertThat(gateway.fenceRow("/b/rebound")).isEqualTo(-1);
    }

    @Test
    void curlAndScriptsStillRaiseAndProbesStayOpenToAnyHost() throws IOException {
        String response = send("POST /fences/%2Fb%2Fcurl?token=5 HTTP/1.1\r\nHost: 127.0.0.1:9090\r\nUser-Agent: curl/8.5.0\r\n"
                + "Accept: */*\r\n\r\n");
        assertThat(RawHttp.status(response)).as(response).isEqualTo(200);
        assertThat(gateway.fenceRow("/b/curl")).isEqualTo(5);
        String viaIpv6 = send("POST /fences/%2Fb%2Fcurl?token=6 HTTP/1.1\r\nHost: [::1]:9090\r\nContent-Length: 0\r\n\r\n");
        assertThat(RawHttp.status(viaIpv6)).as(viaIpv6).isEqualTo(200);
        assertThat(RawHttp.status(send("GET /readyz HTTP/1.1\r\nHost: fencegate-0.fencegate.svc:9090\r\n\r\n"))).isEqualTo(200);
    }

    private static String send(String request) throws IOException {
        try (RawHttp raw = RawHttp.connect(gateway.gateway.adminPort())) {
            return raw.send(request).readResponse();
        }
    }
}
