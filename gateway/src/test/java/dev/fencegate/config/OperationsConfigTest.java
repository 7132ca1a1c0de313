package dev.fencegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The admin port can raise fences: off loopback it must have a token, and start fails naming --admin-token. */
class OperationsConfigTest {

    private static final String TOKEN = "0123456789abcdef";

    @Test
    void aNonLoopbackAdminPortWithoutATokenFailsNamingTheFlag() {
        Throwable failure = catchThrowable(() -> config("0.0.0.0", OperationsConfig.defaults()));

        assertThat(failure).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--admin-token: missing (expected a token of 16 to 512 visible ASCII characters,")
                .hasMessageContaining("--admin-listen 0.0.0.0:9090 is not a loopback address");
    }

    @Test
    void aNonLoopbackAdminPortWithATokenStarts() {
        GatewayConfig config = config("0.0.0.0", new OperationsConfig(AccessLogFormat.OFF, TOKEN));

        assertThat(config.operations().adminTokenIfSet()).contains(TOKEN);
    }

    @Test
    void aLoopbackAdminPortNeedsNoToken() {
        assertThat(config("127.0.0.1", OperationsConfig.defaults()).operations().adminTokenIfSet()).isEmpty();
    }

    @ParameterizedTest(name = "{0} loopback={1}")
    @CsvSource({"127.0.0.1,true", "127.1.2.3,true", "localhost,true", "LOCALHOST,true", "::1,true",
            "0:0:0:0:0:0:0:1,true", "0.0.0.0,false", "::,false", "10.0.0.1,false", "admin.internal,false",
            "127.0.0.1.example,false"})
    void loopbackIsDecidedFromTheTextWithoutALookup(String host, boolean loopback) {
        assertThat(new HostPort(host, 9090).isLoopback()).isEqualTo(loopback);
    }

    @Test
    void theTokenNeverShowsInTheRecordsText() {
        assertThat(new OperationsConfig(AccessLogFormat.JSON, TOKEN).toString()).doesNotContain(TOKEN).contains("set");
    }

    private static GatewayConfig config(String adminHost, OperationsConfig operations) {
        return new GatewayConfig(new HostPort("127.0.0.1", 8080), new HostPort(adminHost, 9090), URI.create("http://store:9000"),
                new DatabaseConfig("jdbc:postgresql://db/fences", "public", "postgres", "", 4, Duration.ofSeconds(2)),
                Duration.ofSeconds(2), Duration.ofSeconds(60), Duration.ofSeconds(30), Limits.defaults(),
                SafetyConfig.defaults(), 2, operations);
    }
}
