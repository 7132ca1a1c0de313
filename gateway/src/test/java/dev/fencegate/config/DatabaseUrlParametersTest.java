package dev.fencegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

/**
 * A --db-url may not name a parameter the gateway sets on its connections itself, or one that
 * changes how its sessions behave in ways it relies on: pgJDBC reads a URL's parameters over the
 * gateway's own, so {@code socketTimeout=0} there would let a hung database hang every fence check.
 */
class DatabaseUrlParametersTest {

    /** Set on every connection by the gateway or its pool (FenceDatabase, HikariCP). */
    private static final List<String> SET_BY_THE_GATEWAY = List.of("options", "socketTimeout", "connectTimeout",
            "loginTimeout", "tcpKeepAlive", "ApplicationName", "currentSchema", "readOnly");
    /** Change what the gateway's sessions do in ways it relies on. */
    private static final List<String> CHANGING_ITS_SESSIONS = List.of("readOnlyMode", "replication", "preferQueryMode",
            "autosave", "cancelSignalTimeout");

    static Stream<Arguments> refusedSpellings() {
        return Stream.concat(SET_BY_THE_GATEWAY.stream(), CHANGING_ITS_SESSIONS.stream()).flatMap(name -> Stream.of(
                Arguments.of(name, name + "=0"),
                Arguments.of(name, name.toUpperCase(Locale.ROOT) + "=0"),
                Arguments.of(name, name.toLowerCase(Locale.ROOT)),
                Arguments.of(name, " " + name + " =x")));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("refusedSpellings")
    void aDatabaseUrlParameterTheGatewaySetsOrReliesOnStopsTheStart(String name, String parameter) {
        String url = "jdbc:postgresql://db:5432/fences?sslmode=require&" + parameter + "&targetServerType=primary";

        Throwable refused = catchThrowable(() -> database(url));

        assertThat(refused).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--db-url: '" + url + "' (expected no " + name + " parameter: ");
    }

    @Test
    void theSocketTimeoutIsRefusedAsTheGatewaysOwnBound() {
        Throwable refused = catchThrowable(() -> database("jdbc:postgresql://db/fences?socketTimeout=0"));

        assertThat(refused).hasMessage("--db-url: 'jdbc:postgresql://db/fences?socketTimeout=0' (expected no socketTimeout"
                + " parameter: the gateway sets it itself from --fence-timeout, so that a database that stops answering fails"
                + " a fence check instead of holding its thread)");
    }

    /** A service file could set the parameters refused in the URL (see below), so it is refused as well. */
    @Test
    void aServiceIsRefused() {
        assertThat(catchThrowable(() -> database("jdbc:postgresql://db/fences?service=fences")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--db-url: 'jdbc:postgresql://db/fences?service=fences' (expected no service parameter: ");
    }

    @Test
    void theRefusalShowsNoPassword() {
        String url = "jdbc:postgresql://fg:url-secret@db/fences?password=query-secret&ApplicationName=mine"
                + "&sslpassword=key-secret";

        Throwable refused = catchThrowable(() -> database(url));

        assertThat(refused).hasMessageStartingWith("--db-url: 'jdbc:postgresql://********@db/fences?password=********"
                        + "&ApplicationName=mine&sslpassword=********' (expected no ApplicationName parameter: ")
                .hasMessageNotContaining("secret");
    }

    /** The operator's parameters, a name that only contains a refused one, and a value naming one, pass. */
    @Test
    void otherParametersAreTheOperators() {
        for (String url : List.of("jdbc:postgresql://db/fences",
                "jdbc:postgresql://pg1:5432,pg2:5432/fences?targetServerType=primary&loadBalanceHosts=true",
                "jdbc:postgresql://db/fences?prepareThreshold=0&user=fg&password=pw&sslmode=verify-full&sslrootcert=/etc/socketTimeout",
                "jdbc:postgresql://db/fences?queryTimeout=5&tcpNoDelay=true&sslResponseTimeout=3000&",
                "jdbc:postgresql://db/fences?applicationNameSuffix=x")) {
            assertThatCode(() -> database(url)).as(url).doesNotThrowAnyException();
        }
    }

    /**
     * Why each is refused: every one is a property of the driver, and a URL naming it wins over the
     * property the gateway hands the driver for the connection.
     */
    @Test
    void theDriverReadsEveryRefusedParameterFromTheUrlOverTheGatewaysProperties() {
        for (String name : Stream.concat(SET_BY_THE_GATEWAY.stream(), CHANGING_ITS_SESSIONS.stream()).toList()) {
            assertThat(PGProperty.forName(name)).as(name).isNotNull();
            Properties gateways = new Properties();
            gateways.setProperty(name, "gateway");

            Properties read = Driver.parseURL("jdbc:postgresql://db/fences?" + name + "=url", gateways);

            assertThat(read.getProperty(name)).as(name).isEqualTo("url");
        }
    }

    /**
     * A service file sets what the gateway does not hand the driver: a file's options do not win
     * over the gateway's, but its autosave or cancelSignalTimeout apply, refused as they are in a URL.
     */
    @Test
    void aServiceFileSetsParametersTheGatewayDoesNotHandTheDriver(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("pg_service.conf"),
                "[fences]\nhost=db\ndbname=fences\noptions=-c statement_timeout=0\nautosave=always\ncancelSignalTimeout=0\n");
        Properties gateways = new Properties();
        gateways.setProperty("options", "-c statement_timeout=3000");
        String property = "org.postgresql.pgservicefile";
        String before = System.getProperty(property);
        System.setProperty(property, file.toString());
        try {
            Properties read = Driver.parseURL("jdbc:postgresql:///?service=fences", gateways);

            assertThat(read.getProperty("options")).isEqualTo("-c statement_timeout=3000");
            assertThat(read.getProperty("autosave")).isEqualTo("always");
            assertThat(read.getProperty("cancelSignalTimeout")).isEqualTo("0");
        } finally {
            if (before == null) {
                System.clearProperty(property);
            } else {
                System.setProperty(property, before);
            }
        }
    }

    private static DatabaseConfig database(String url) {
        return new DatabaseConfig(url, "public", "postgres", "", 2, Duration.ofSeconds(2));
    }
}
