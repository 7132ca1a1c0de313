package dev.fencegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Flags become one validated config; a bad or missing flag fails naming itself and what it expected. */
class GatewayOptionsTest {

    private static final String UPSTREAM = "http://127.0.0.1:9000";

    @Command(name = "gateway-options-test")
    static final class Wrapper {
        @Mixin
        GatewayOptions options = new GatewayOptions();
    }

    @Test
    void onlyTheUpstreamIsRequiredAndTheRestHasDefaults() {
        GatewayConfig config = configOf("--upstream", UPSTREAM);

        assertThat(config.listen()).isEqualTo(new HostPort("127.0.0.1", 8080));
        assertThat(config.adminListen()).isEqualTo(new HostPort("127.0.0.1", 9090));
        assertThat(config.upstream()).isEqualTo(URI.create(UPSTREAM));
        assertThat(config.upstreamAddress()).isEqualTo(new HostPort("127.0.0.1", 9000));
        assertThat(config.upstreamPathPrefix()).isEmpty();
        assertThat(config.database()).isEqualTo(new DatabaseConfig("jdbc:postgresql://127.0.0.1:5432/postgres", "public",
                "postgres", "", 2, Duration.ofSeconds(2)));
        assertThat(config.upstreamConnectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.upstreamTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.clientIdleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.limits()).isEqualTo(Limits.defaults());
        assertThat(config.ioThreads()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(config.safety()).isEqualTo(SafetyConfig.defaults());
        assertThat(config.operations()).isEqualTo(OperationsConfig.defaults());
    }

    @Test
    void everyFlagReachesTheConfig() {
        GatewayConfig config = configOf(
                "--listen", "0.0.0.0:18080", "--admin-listen", "[::1]:19090",
                "--upstream", "http://store.internal/base/", "--store-kind", "http",
                "--db-url", "jdbc:postgresql://db:5433/fences", "--db-schema", "fencegate", "--db-user", "fg",
                "--db-password", "secret", "--db-pool-size", "7", "--fence-timeout", "750ms",
                "--upstream-connect-timeout", "3s", "--upstream-timeout", "2m", "--client-idle-timeout", "45s",
                "--head-timeout", "3s", "--max-uri-length", "4096", "--max-header-size", "2048", "--io-threads", "3",
                "--allow-unsafe-durability", "--require-sync-standby=true", "--remembered-fences", "5000",
                "--access-log", "json", "--admin-token", "0123456789abcdef0123", "--multipart-upload-lifetime", "30d");

        assertThat(config.listen()).isEqualTo(new HostPort("0.0.0.0", 18080));
        assertThat(config.adminListen()).isEqualTo(new HostPort("::1", 19090));
        assertThat(config.upstreamAddress()).isEqualTo(new HostPort("store.internal", 80));
        assertThat(config.upstreamPathPrefix()).isEqualTo("/base");
        assertThat(config.database()).isEqualTo(new DatabaseConfig("jdbc:postgresql://db:5433/fences", "fencegate",
                "fg", "secret", 7, Duration.ofMillis(750)));
        assertThat(config.database().describe()).contains("(password set)").doesNotContain("secret");
        assertThat(config.upstreamConnectTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(config.upstreamTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(config.clientIdleTimeout()).isEqualTo(Duration.ofSeconds(45));
        assertThat(config.limits()).isEqualTo(new Limits(4096, 2048, 0, 100, 10_000, "", "localhost", StoreKind.HTTP, Duration.ofSeconds(3)));
        assertThat(config.ioThreads()).isEqualTo(3);
        assertThat(config.safety()).isEqualTo(new SafetyConfig(true, true, 5000));
        assertThat(config.operations()).isEqualTo(new OperationsConfig(AccessLogFormat.JSON, "0123456789abcdef0123",
                Duration.ofDays(30)));
        assertThat(config.operations().toString()).doesNotContain("0123456789abcdef0123");
        assertThat(config.database().toString()).doesNotContain("secret");
    }

    /**
     * An S3 store reads the bucket from the first segment of the path it gets: behind a path of
     * the upstream's, each client's bucket would be a key of another one, and a DeleteObjects
     * request's keys deleted in another bucket than the one fenced. Other kinds take a path.
     */
    @Test
    void anS3StoreIsReachedAtTheRootOfItsHostOrTheStartStops() {
        for (String kind : new String[] {"s3-path", "s3-virtual-host"}) {
            Throwable failure = catchThrowable(() -> configOf("--upstream", "http://localhost:9000/bkt", "--store-kind", kind));
            assertThat(failure).as(kind).hasMessageContaining("expected no path under --store-kind " + kind);
            assertThat(configOf("--upstream", "http://localhost:9000/", "--store-kind", kind).upstreamPathPrefix()).isEmpty();
        }
        for (String kind : new String[] {"http", "webdav"}) {
            assertThat(configOf("--upstream", "http://localhost:9000/bkt", "--store-kind", kind).upstreamPathPrefix())
                    .isEqualTo("/bkt");
        }
    }

    /**
     * Behind {@code /x/..} the store reads every client's path at the root, where a top-level path is
     * a bucket, while the gateway, reading the path as written, would take it for one level deeper.
     */
    @Test
    void anUpstreamPathAStoreCouldResolveToAnotherFolderStopsTheStart() {
        for (String kind : new String[] {"http", "webdav"}) {
            for (String path : new String[] {"/x/..", "/x/../", "/x/%2e%2E", "/.", "/x/.%2e/y", "//", "/x//y", "/x/%2Fy",
                    "/x/%5cy", "/x;p/y", "/x/%3By", "/x/%00", "/x/%C0%AE", "/x/%FF"}) {
                Throwable failure = catchThrowable(() -> configOf("--upstream", "http://localhost:9000" + path, "--store-kind", kind));
                assertThat(failure).as("%s %s", kind, path).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("--upstream").hasMessageContaining("expected a path of plain segments");
            }
            for (String path : new String[] {"/dav", "/dav/", "/a.b/..c/%20d", "/%C3%A9t%C3%A9/x~y"}) {
                assertThat(configOf("--upstream", "http://localhost:9000" + path, "--store-kind", kind).upstreamPathPrefix())
                        .as("%s %s", kind, path).isEqualTo(path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
            }
        }
    }

    @Test
    void temporaryNamesAreRefusedUnlessAllowed() {
        assertThat(configOf("--upstream", "http://store").limits().allowTemporaryNames()).isFalse();
        assertThat(configOf("--upstream", "http://store", "--allow-temporary-names").limits().allowTemporaryNames()).isTrue();
    }

    /** The help text is written by hand; it must not drift from the table the values come from. */
    @Test
    void everySettingHasAFlagWhoseHelpNamesItsVariableAndDefault() {
        CommandLine cli = new CommandLine(new Wrapper());
        for (Setting setting : Setting.values()) {
            CommandLine.Model.OptionSpec option = cli.getCommandSpec().findOption(setting.flag());
            assertThat(option).as("flag for %s", setting).isNotNull();
            String help = String.join(" ", option.description());
            assertThat(help).as(setting.flag()).contains("env " + setting.variable());
            if (setting.defaultValue() != null && !setting.defaultValue().isEmpty()) {
                assertThat(help).as(setting.flag()).contains("default " + setting.defaultValue() + ")");
            }
        }
    }

    @Test
    void aMissingUpstreamNamesTheFlagAndItsVariable() {
        Throwable failure = catchThrowable(() -> configOf());

        assertThat(failure).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--upstream").hasMessageContaining("expected").hasMessageContaining("FENCEGATE_UPSTREAM");
    }

    /** An out-of-range port must fail at start naming the flag, not later when the gateway connects. */
    @Test
    void anUpstreamPortOutOfRangeFailsAtStartNamingTheFlag() {
        Throwable failure = catchThrowable(() -> configOf("--upstream", "http://store:99999"));

        assertThat(failure).as("--upstream http://store:99999 was accepted").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--upstream").hasMessageContaining("expected");
    }

    /** Parameters the gateway neither sets nor relies on are the operator's (see DatabaseUrlParametersTest). */
    @Test
    void aDatabaseUrlMayCarryOtherParameters() {
        String url = "jdbc:postgresql://pg1:5432,pg2:5432/fences?targetServerType=primary&sslmode=require";

        assertThat(configOf("--upstream", UPSTREAM, "--db-url", url).database().url()).isEqualTo(url);
    }

    /** Timeouts become nanoseconds on a clock, where 200000d overflowed and failed every write. */
    @Test
    void timeoutsOfUpToADayAreAccepted() {
        GatewayConfig config = configOf("--upstream", UPSTREAM, "--upstream-timeout", "1d", "--upstream-connect-timeout", "24h",
                "--client-idle-timeout", "1440m", "--head-timeout", "86400s");

        assertThat(List.of(config.upstreamTimeout(), config.upstreamConnectTimeout(), config.clientIdleTimeout(),
                config.limits().headTimeout())).containsOnly(Duration.ofDays(1));
    }

    /** Decided from the text: a name, even one spelt in hex digits like 'cafe', would trust whatever it resolves to. */
    @Test
    void trustedProxiesAreAddressLiterals() {
        GatewayConfig config = configOf("--upstream", UPSTREAM, "--trusted-proxies", "10.0.0.7, fd00::7,::1,0.0.0.0");

        assertThat(config.limits().trustedProxyList()).containsExactly("10.0.0.7", "fd00::7", "::1", "0.0.0.0");
    }

    /** The address holds the bare IPv6 literal, as {@code --listen [::1]:8080} does; brackets are for printing. */
    @Test
    void anIpv6UpstreamGivesTheBareAddress() {
        GatewayConfig config = configOf("--upstream", "http://[::1]:9000");

        assertThat(config.upstreamAddress()).isEqualTo(new HostPort("::1", 9000));
        assertThat(config.upstreamAddress()).hasToString("[::1]:9000");
    }

    @Test
    void anHttpsUpstreamIsReachedOverTlsOnPort443UnlessItGivesAPort() {
        GatewayConfig standard = configOf("--upstream", "https://store");
        GatewayConfig own = configOf("--upstream", "HTTPS://store:9443/base", "--store-kind", "http");
        GatewayConfig plain = configOf("--upstream", "http://store");

        assertThat(standard.upstreamTls()).isTrue();
        assertThat(standard.upstreamAddress()).isEqualTo(new HostPort("store", 443));
        assertThat(own.upstreamTls()).isTrue();
        assertThat(own.upstreamAddress()).isEqualTo(new HostPort("store", 9443));
        assertThat(plain.upstreamTls()).isFalse();
        assertThat(plain.upstreamAddress()).isEqualTo(new HostPort("store", 80));
    }

    /** A CA file for a plain HTTP store would be read as if it protected something. */
    @Test
    void aStoreCaIsRefusedForAPlainHttpStore(@TempDir Path dir) throws Exception {
        Path pem = Files.writeString(dir.resolve("ca.pem"), "not read here");

        Throwable failure = catchThrowable(() -> configOf("--upstream", "http://store:9000", "--upstream-ca", pem.toString()));

        assertThat(failure).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--upstream-ca: '" + pem + "' set, but --upstream 'http://store:9000' is plain HTTP");
        assertThat(configOf("--upstream", "https://store:9443", "--upstream-ca", pem.toString()).tls().storeCa())
                .isEqualTo(pem.toString());
    }

    /** Each bad setting, and what its message must say besides the flag's name. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badSettings")
    void aBadSettingFailsNamingItselfAndWhatWasExpected(String flag, String value, String expected) {
        List<String> args = new ArrayList<>(List.of(flag, value));
        if (!flag.equals("--upstream")) {
            args.addAll(List.of("--upstream", UPSTREAM));
        }

        Throwable failure = catchThrowable(() -> configOf(args.toArray(String[]::new)));

        assertThat(failure).as("%s %s", flag, value)
                .isInstanceOfAny(IllegalArgumentException.class, CommandLine.ParameterException.class)
                .hasMessageContaining(flag)
                .hasMessageContaining(expected);
    }

    static Stream<Arguments> badSettings() {
        return Stream.of(
                Arguments.of("--listen", "nope", "expected HOST:PORT"),
                Arguments.of("--listen", "127.0.0.1:70000", "0 to 65535"),
                Arguments.of("--admin-listen", "localhost:", "expected HOST:PORT"),
                Arguments.of("--upstream", "ftp://store", "expected http://HOST[:PORT][/PATH] or https://HOST[:PORT][/PATH]"),
                Arguments.of("--upstream-ca", "/nonexistent/store-ca.pem", "'/nonexistent/store-ca.pem' (expected a readable PEM file of CA certificates)"),
                Arguments.of("--upstream", "nope", "expected http://HOST"),
                Arguments.of("--upstream", "http:///base", "expected http://HOST"),
                Arguments.of("--upstream", "http://store/?x=1", "expected no query"),
                Arguments.of("--upstream", "http://store/#top", "expected no query or fragment"),
                Arguments.of("--upstream", "http://sto re", "http://sto re"),
                Arguments.of("--upstream", "http://user:pw@store/", "'http://********@store/' (expected http://HOST[:PORT][/PATH] without a user or password"),
                Arguments.of("--db-url", "postgres://db/x", "expected jdbc:postgresql://"),
                Arguments.of("--db-url", "jdbc:postgresql://db/x?options=-c%20search_path%3Dother", "(expected no options parameter: the gateway sets its sessions' options itself"),
                Arguments.of("--db-url", "jdbc:postgresql://db/x?ssl=true&options", "(expected no options parameter"),
                Arguments.of("--db-url", "jdbc:postgresql://db/x?socketTimeout=0", "(expected no socketTimeout parameter: the gateway sets it itself"),
                Arguments.of("--db-user", "", "--db-user: given empty (expected the role to connect as"),
                Arguments.of("--db-url", "", "expected jdbc:postgresql://"),
                Arguments.of("--db-schema", "", "expected a lower-case SQL identifier"),
                Arguments.of("--listen", "", "expected HOST:PORT"),
                Arguments.of("--db-schema", "Fences", "expected a lower-case SQL identifier"),
                Arguments.of("--db-schema", "1abc", "expected a lower-case SQL identifier"),
                Arguments.of("--db-schema", "pg_catalog", "names beginning pg_, and information_schema, are PostgreSQL's"),
                Arguments.of("--db-schema", "pg_temp", "names beginning pg_, and information_schema, are PostgreSQL's"),
                Arguments.of("--db-schema", "information_schema", "names beginning pg_, and information_schema, are PostgreSQL's"),
                Arguments.of("--db-pool-size", "0", "expected 1 to 1000"),
                Arguments.of("--db-pool-size", "1001", "expected 1 to 1000"),
                Arguments.of("--db-pool-size", "many", "many"),
                Arguments.of("--fence-timeout", "0s", "expected more than 0"),
                Arguments.of("--fence-timeout", "61s", "at most 60s"),
                Arguments.of("--fence-timeout", "5", "expected a duration"),
                Arguments.of("--upstream-connect-timeout", "0ms", "expected more than 0"),
                Arguments.of("--upstream-timeout", "0s", "expected more than 0"),
                Arguments.of("--upstream-timeout", "1w", "expected a duration"),
                Arguments.of("--upstream-timeout", "200000d", "200000d (expected more than 0 and at most 1d)"),
                Arguments.of("--upstream-connect-timeout", "25d", "25d (expected more than 0 and at most 1d)"),
                Arguments.of("--client-idle-timeout", "0m", "expected more than 0"),
                Arguments.of("--client-idle-timeout", "1441m", "86460s (expected more than 0 and at most 1d)"),
                Arguments.of("--head-timeout", "0s", "expected more than 0"),
                Arguments.of("--head-timeout", "25h", "90000s (expected more than 0 and at most 1d)"),
                Arguments.of("--max-uri-length", "255", "expected at least 256"),
                Arguments.of("--max-header-size", "1023", "expected at least 1024"),
                Arguments.of("--io-threads", "-1", "-1 (expected 0 for one per core, or 1 to 256)"),
                Arguments.of("--io-threads", "-2", "-2 (expected 0 for one per core, or 1 to 256)"),
                Arguments.of("--io-threads", "257", "257 (expected 0 for one per core, or 1 to 256)"),
                Arguments.of("--io-threads", "two", "expected an integer"),
                Arguments.of("--allow-unsafe-durability", "yes", "expected true or false"),
                Arguments.of("--remembered-fences", "10", "expected 1000 to 50000000"),
                Arguments.of("--access-log", "xml", "expected json or off"),
                Arguments.of("--trusted-proxies", "10.0.0.7,notanip", "'notanip' (expected IP addresses"),
                Arguments.of("--trusted-proxies", "cafe", "'cafe' (expected IP addresses"),
                Arguments.of("--trusted-proxies", "10.0.0.256", "'10.0.0.256' (expected IP addresses"),
                Arguments.of("--trusted-proxies", "010.0.0.7", "'010.0.0.7' (expected IP addresses"),
                Arguments.of("--trusted-proxies", "fd00::7::1", "'fd00::7::1' (expected IP addresses"),
                Arguments.of("--admin-token", "short", "expected 16 to 512 visible ASCII characters"),
                Arguments.of("--multipart-upload-lifetime", "59s", "expected 1m to 36500d"),
                Arguments.of("--multipart-upload-lifetime", "36501d", "expected 1m to 36500d"),
                Arguments.of("--multipart-upload-lifetime", "7", "expected a duration"));
    }

    private static GatewayConfig configOf(String... args) {
        Wrapper wrapper = new Wrapper();
        new CommandLine(wrapper).parseArgs(args);
        // An empty environment: the defaults under test must not depend on this machine's variables.
        return wrapper.options.toConfig(Map.of());
    }
}
