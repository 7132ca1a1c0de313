package dev.fencegate.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What the gate lets through to the fence endpoints, by what a browser would add. */
class CrossSiteGateTest {

    private final CrossSiteGate gate = new CrossSiteGate("admin.internal", false);

    @ParameterizedTest(name = "{0} {1} origin={2} site={3} host={4} type={5} -> {6}")
    @MethodSource("cases")
    void judgesByWhatABrowserAdds(String method, String path, String origin, String site, String host, String type, int status) {
        Optional<AdminResponse> refusal = gate.refusal(method, path, new CrossSiteGate.Signals(Optional.ofNullable(origin),
                Optional.ofNullable(site), Optional.ofNullable(host), Optional.ofNullable(type)));
        assertThat(refusal.map(AdminResponse::status).orElse(0)).isEqualTo(status);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "127.0.0.1:9090", null, 0),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, null, null, 0),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "localhost", "application/json", 0),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "ADMIN.internal:9090", null, 0),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "[::1]:9090", null, 0),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, "none", "10.0.0.7:9090", null, 0),
                Arguments.of("POST", "/fences/%2Fb%2Fk", "null", null, "127.0.0.1", null, 403),
                Arguments.of("POST", "/fences/%2Fb%2Fk", "http://127.0.0.1:9090", null, "127.0.0.1:9090", null, 403),
                Arguments.of("GET", "/fences/%2Fb%2Fk", "https://evil.example", null, "127.0.0.1", null, 403),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, "cross-site", "127.0.0.1", null, 403),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, "same-origin", "127.0.0.1", null, 403),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "evil.example", null, 403),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "127.0.0.1.evil.example:9090", null, 403),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "localhost.evil.example", null, 403),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "127.0.0.1", "application/x-www-form-urlencoded", 415),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "127.0.0.1", "Multipart/Form-Data; boundary=x", 415),
                Arguments.of("POST", "/fences/%2Fb%2Fk", null, null, "127.0.0.1", "text/plain;charset=UTF-8", 415),
                Arguments.of("GET", "/fences/%2Fb%2Fk", null, null, "127.0.0.1", "text/plain", 0),
                Arguments.of("GET", "/readyz", "https://evil.example", "cross-site", "evil.example", null, 0),
                Arguments.of("GET", "/metrics", null, null, "prometheus-target.svc:9090", null, 0));
    }

    /** A rebound page cannot know the token, so a tokened port answers operators under any name; pages are still refused. */
    @org.junit.jupiter.api.Test
    void withATokenAnyHostNameMayBeUsedButPagesAreStillRefused() {
        CrossSiteGate tokened = new CrossSiteGate("0.0.0.0", true);
        assertThat(tokened.refusal("POST", "/fences/%2Fb%2Fk", new CrossSiteGate.Signals(Optional.empty(), Optional.empty(),
                Optional.of("fencegate-admin.internal:9090"), Optional.empty()))).isEmpty();
        assertThat(tokened.refusal("POST", "/fences/%2Fb%2Fk", new CrossSiteGate.Signals(Optional.of("https://evil.example"),
                Optional.empty(), Optional.of("fencegate-admin.internal:9090"), Optional.empty())).map(AdminResponse::status))
                .contains(403);
    }
}
