package dev.fencegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Listen and connect addresses: HOST:PORT or [IPV6]:PORT, or a message saying so. */
class HostPortTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void parsesHostAndPort(String text, String host, int port) {
        assertThat(HostPort.parse(text)).isEqualTo(new HostPort(host, port));
    }

    static Stream<Arguments> valid() {
        return Stream.of(
                Arguments.of("127.0.0.1:8080", "127.0.0.1", 8080),
                Arguments.of("localhost:0", "localhost", 0),
                Arguments.of("store.example:65535", "store.example", 65535),
                Arguments.of("[::1]:9090", "::1", 9090),
                Arguments.of("[::]:80", "::", 80));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void refusesSayingWhatWasExpected(String text, String expected) {
        assertThatThrownBy(() -> HostPort.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected")
                .hasMessageContaining(expected);
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("nope", "'nope' (expected HOST:PORT"),
                Arguments.of("", "expected HOST:PORT"),
                Arguments.of(":8080", "expected HOST:PORT"),
                Arguments.of("host:", "expected HOST:PORT"),
                Arguments.of("host:http", "numeric port"),
                Arguments.of("host: 80", "numeric port"),
                Arguments.of("host:99999999999", "numeric port"),
                Arguments.of("host:65536", "0 to 65535, got 65536"),
                Arguments.of("host:-1", "numeric port"),
                Arguments.of("[]:80", "a host"),
                Arguments.of(" :80", "a host"),
                Arguments.of("[::1]", "[IPV6]:PORT"));
    }

    /**
     * An IPv6 address without brackets and without a port is misread as HOST:PORT ({@code ::1}
     * becomes host {@code :} port 1, {@code fe80::1} host {@code fe80:} port 1). Refuse, don't guess.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("unbracketedIpv6")
    void refusesAnUnbracketedIpv6Address(String text) {
        HostPort[] parsed = new HostPort[1];
        Throwable failure = catchThrowable(() -> parsed[0] = HostPort.parse(text));

        assertThat(failure).as("'%s' was read as host '%s' port %s", text,
                        parsed[0] == null ? null : parsed[0].host(), parsed[0] == null ? null : parsed[0].port())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected");
    }

    static Stream<String> unbracketedIpv6() {
        return Stream.of("::1", "fe80::1");
    }

    @Test
    void printsIpv6InBracketsSoThatItParsesBack() {
        HostPort v6 = new HostPort("::1", 9090);
        HostPort v4 = new HostPort("127.0.0.1", 8080);

        assertThat(v6).hasToString("[::1]:9090");
        assertThat(v4).hasToString("127.0.0.1:8080");
        assertThat(HostPort.parse(v6.toString())).isEqualTo(v6);
        assertThat(HostPort.parse(v4.toString())).isEqualTo(v4);
    }
}
