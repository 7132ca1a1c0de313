package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TcpRelay;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A gateway whose database is wrong or gone says why, in /readyz and in the 503 its writes get. */
@ExtendWith(NoNettyLeaks.class)
class HonestStartIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenDatabases")
    void aBrokenDatabaseIsNamedByReadyzAndByThe503WritesGet(String what, DatabaseConfig database, String cause) throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, database, Duration.ofSeconds(5), Duration.ofSeconds(5), SafetyConfig.defaults()))) {
            assertThat(gateway.gateway.ready()).isFalse();
            HttpResponse<String> readyz = readyz(gateway.gateway.adminPort());
            assertThat(readyz.statusCode()).isEqualTo(503);
            assertThat(readyz.body()).contains(cause);

            HttpResponse<String> write = gateway.put("/honest/" + what.replace(' ', '-'), 1, "x");
            assertThat(write.statusCode()).isEqualTo(503);
            assertThat(write.body()).contains("the fence database cannot be used: ").contains(cause.replace("\"", "\\\""));
            assertThat(gateway.store.applied()).isEmpty();
        }
    }

    static Stream<Arguments> brokenDatabases() {
        DatabaseConfig good = TestPostgres.config("honest_start", Duration.ofSeconds(1));
        URI server = URI.create(good.url().substring("jdbc:".length()));
        String base = "jdbc:postgresql://" + server.getHost() + ":" + server.getPort() + "/";
        return Stream.of(
                Arguments.of("missing database", new DatabaseConfig(base + "fencegate_no_such_database", good.schema(),
                        good.user(), good.password(), 2, good.checkTimeout()),
                        "database \"fencegate_no_such_database\" does not exist (check the database named in --db-url)"),
                Arguments.of("unknown user", new DatabaseConfig(good.url(), good.schema(), "fencegate_no_such_role",
                        "wrong", 2, good.checkTimeout()), "\"fencegate_no_such_role\""),
                Arguments.of("closed port", new DatabaseConfig("jdbc:postgresql://127.0.0.1:1/test", good.schema(),
                        good.user(), good.password(), 2, good.checkTimeout()),
                        "(check the host and port in --db-url, and that PostgreSQL is running)"));
    }

    @Test
    void readinessFollowsADeadDatabaseWithinTheFenceTimeout() throws Exception {
        Duration fenceTimeout = Duration.ofSeconds(6);
        DatabaseConfig direct = TestPostgres.config(TestPostgres.newSchema("readiness_follows"), fenceTimeout);
        URI server = URI.create(direct.url().substring("jdbc:".length()));
        try (TcpRelay relay = TcpRelay.start(server.getHost(), server.getPort())) {
            DatabaseConfig relayed = new DatabaseConfig("jdbc:postgresql://127.0.0.1:" + relay.port() + server.getPath(),
                    direct.schema(), direct.user(), direct.password(), 2, fenceTimeout);
            try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                    upstream, relayed, Duration.ofSeconds(5), Duration.ofSeconds(5), SafetyConfig.defaults()))) {
                int admin = gateway.gateway.adminPort();
                Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> readyz(admin).statusCode() == 200);

                long died = System.nanoTime();
                relay.close();
                Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                        .until(() -> readyz(admin).statusCode() == 503);
                Duration followed = Duration.ofNanos(System.nanoTime() - died);

                assertThat(followed).as("/readyz turned 503 after %s", followed).isLessThan(fenceTimeout);
                assertThat(readyz(admin).body()).contains("fence store unavailable");
            }
        }
    }

    private static HttpResponse<String> readyz(int adminPort) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/readyz"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
