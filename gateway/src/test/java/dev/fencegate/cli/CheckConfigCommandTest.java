package dev.fencegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.CheckConfigCommand;
import dev.fencegate.Fencegate;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code fencegate check-config}: every effective setting with its source, secrets masked; exit 2 when invalid. */
class CheckConfigCommandTest {

    private static final String PASSWORD = "pg-secret-42";
    private static final String ADMIN_TOKEN = "admin-token-0123456789";

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void printsEverySettingWithItsSourceAndExitsZero() throws IOException {
        Path file = Files.writeString(dir.resolve("fencegate.yml"), "upstream: http://store:9000\nlisten: 0.0.0.0:8080\n");

        int status = run(Map.of("FENCEGATE_DB_POOL_SIZE", "8"), "--config", file.toString(), "--fence-timeout", "750ms");

        assertThat(status).as(err.toString()).isZero();
        assertThat(lines()).contains(
                "config = " + file + " (flag)",
                "upstream = http://store:9000 (file)",
                "listen = 0.0.0.0:8080 (file)",
                "db-pool-size = 8 (env)",
                "fence-timeout = 750ms (flag)",
                "admin-listen = 127.0.0.1:9090 (default)");
        assertThat(lines()).hasSize(1 + dev.fencegate.config.Setting.values().length);
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void secretsAreMaskedWhereverTheyComeFrom() {
        int status = run(Map.of("FENCEGATE_DB_PASSWORD", PASSWORD),
                "--upstream", "http://store:9000", "--admin-token", ADMIN_TOKEN);

        assertThat(status).as(err.toString()).isZero();
        assertThat(out.toString()).doesNotContain(PASSWORD).doesNotContain(ADMIN_TOKEN);
        assertThat(lines()).contains("db-password = ******** (env)", "admin-token = ******** (flag)");
    }

    @Test
    void anInvalidValueExitsTwoWithTheMessageNamingTheSetting() {
        int status = run(Map.of("FENCEGATE_UPSTREAM", "http://store:9000", "FENCEGATE_FENCE_TIMEOUT", "5"));

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("--fence-timeout: '5' (expected a duration such as 500ms, 5s, 2m, 6h or 7d); set by FENCEGATE_FENCE_TIMEOUT");
        assertThat(lines()).as("the settings are still shown, to find the culprit").contains("fence-timeout = 5 (env)");
    }

    @Test
    void anUnknownKeyInTheFileExitsTwoNamingTheKeyAndFile() throws IOException {
        Path file = Files.writeString(dir.resolve("typo.yml"), "upstream: http://store:9000\ndb-passwd: x\n");

        int status = run(Map.of(), "--config", file.toString());

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("unknown key 'db-passwd'").contains(file.toString());
    }

    @Test
    void aNonLoopbackAdminPortWithoutATokenExitsTwoNamingTheFlag() {
        int status = run(Map.of(), "--upstream", "http://store:9000", "--admin-listen", "0.0.0.0:9090");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("--admin-token: missing");
    }

    /** What serve refuses to start with, or runs with every write refused, check-config must not call valid. */
    @Test
    void settingsServeRefusesExitTwo() {
        for (String[] bad : new String[][] {{"--scopes", "foo"}, {"--trusted-proxies", "notanip"},
                {"--upstream-timeout", "200000d"}}) {
            int status = run(Map.of(), "--upstream", "http://store:9000", bad[0], bad[1]);

            assertThat(status).as(String.join(" ", bad)).isEqualTo(2);
        }
    }

    @Test
    void aBadScopeIsBlamedOnWhereItWasSet() {
        int status = run(Map.of("FENCEGATE_SCOPES", "/{b}/date%3D2024/{job}/**"), "--upstream", "http://store:9000");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).startsWith("--scopes: '/{b}/date%3D2024/{job}/**' has segment 'date%3D2024'")
                .contains("'date=2024'").contains("; set by FENCEGATE_SCOPES");
    }

    /** The gateway never sends them, so they are refused; shown, they are masked, even in a URL that does not parse. */
    @Test
    void anUpstreamWithAUserAndPasswordExitsTwoWithoutShowingThem() {
        for (String upstream : new String[] {"http://fg:" + PASSWORD + "@store:9000/", "http://" + PASSWORD + "@sto re/"}) {
            int status = run(Map.of(), "--upstream", upstream);

            assertThat(status).as(upstream).isEqualTo(2);
            assertThat(err.toString()).startsWith("--upstream: 'http://********@sto");
            assertThat(out + err.toString()).doesNotContain(PASSWORD);
            assertThat(lines()).contains("upstream = http://********@" + upstream.substring(upstream.indexOf('@') + 1) + " (flag)");
            out.getBuffer().setLength(0);
            err.getBuffer().setLength(0);
        }
        assertThat(run(Map.of(), "--upstream", "http://@store:9000/")).isEqualTo(2);
        assertThat(err.toString()).contains("without a user or password");
    }

    /** pgJDBC takes a password from the URL's query too; shown or quoted in an error, its value is masked. */
    @Test
    void aPasswordInTheDatabaseUrlIsNeverShown() {
        String url = "jdbc:postgresql://db:5432/fences?user=fg&password=" + PASSWORD + "#tail&sslPassword=" + ADMIN_TOKEN + "&ssl=true";

        assertThat(run(Map.of("FENCEGATE_DB_URL", url), "--upstream", "http://store:9000")).as(err.toString()).isZero();
        assertThat(lines()).contains("db-url = jdbc:postgresql://db:5432/fences?user=fg&password=********&sslPassword=********&ssl=true (env)");

        assertThat(run(Map.of(), "--upstream", "http://store:9000", "--db-url", "jdbc:mysql://db/fences?password=" + PASSWORD)).isEqualTo(2);
        assertThat(err.toString()).contains("--db-url: 'jdbc:mysql://db/fences?password=********'");
        assertThat(out + err.toString()).doesNotContain(PASSWORD).doesNotContain(ADMIN_TOKEN);
    }

    /** serve opens the keystore before it listens; check-config opens it too, so a wrong password is not called valid. */
    @Test
    void aKeystoreItsPasswordDoesNotOpenExitsTwo() throws Exception {
        Path keystore = dir.resolve("gateway.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "gateway", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(), "-storepass", PASSWORD)
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes());
        assertThat(keytool.waitFor()).as(output).isZero();

        assertThat(run(Map.of("FENCEGATE_TLS_KEYSTORE_PASSWORD", "not-" + PASSWORD),
                "--upstream", "http://store:9000", "--tls-keystore", keystore.toString())).isEqualTo(2);
        assertThat(err.toString()).startsWith("--tls-keystore: " + keystore + " could not be used").doesNotContain(PASSWORD);

        err.getBuffer().setLength(0);
        assertThat(run(Map.of("FENCEGATE_TLS_KEYSTORE_PASSWORD", PASSWORD),
                "--upstream", "http://store:9000", "--tls-keystore", keystore.toString())).as(err.toString()).isZero();
    }

    /** An empty --token-key-file (an unset variable in a unit file) silently turns signature checks off. */
    @Test
    void anExplicitlyEmptyTokenKeyFileExitsTwo() {
        int status = run(Map.of(), "--upstream", "http://store:9000", "--token-key-file", "");

        assertThat(status).as(out.toString()).isEqualTo(2);
        assertThat(err.toString()).contains("--token-key-file");
    }

    /**
     * Each setting that is off when empty is refused when given empty, wherever: a variable set to
     * nothing, a key left blank or {@code ~} in the file, an empty flag over a variable that names a file.
     */
    @Test
    void anEmptyValueThatWouldTurnSomethingOffExitsTwoWhereverItIsGiven() throws IOException {
        Path blank = Files.writeString(dir.resolve("blank.yml"), "upstream: http://store:9000\ntls-keystore:\n");
        Path tilde = Files.writeString(dir.resolve("tilde.yml"), "upstream: http://store:9000\nadmin-token: ~\n");
        Map<String, String> upstream = Map.of("FENCEGATE_UPSTREAM", "http://store:9000");

        assertRefused(run(Map.of("FENCEGATE_UPSTREAM", "http://store:9000", "FENCEGATE_TOKEN_KEY_FILE", "")),
                "--token-key-file: given empty", "; set by FENCEGATE_TOKEN_KEY_FILE");
        assertRefused(run(Map.of(), "--config", blank.toString()), "--tls-keystore: given empty", "; set by tls-keystore in " + blank);
        assertRefused(run(Map.of(), "--config", tilde.toString()), "--admin-token: given empty", "; set by admin-token in " + tilde);
        assertRefused(run(upstream, "--tls-client-truststore", ""), "--tls-client-truststore: given empty", "expected a value");
        assertRefused(run(Map.of("FENCEGATE_UPSTREAM", "http://store:9000", "FENCEGATE_TOKEN_KEY_FILE", "/etc/fencegate/key"),
                "--token-key-file", ""), "--token-key-file: given empty", "expected a value");
    }

    /**
     * A variable spelt as the gateway's that no setting reads is most often a setting's misspelt,
     * which leaves that setting at its default: named on stderr, and the check still passes. The
     * log level's variable and the tests' own are read elsewhere, so not named.
     */
    @Test
    void aVariableNoSettingReadsIsNamedAsAWarning() {
        int status = run(Map.of("FENCEGATE_UPSTREAM", "http://store:9000", "FENCEGATE_TOKEN_KEYFILE", "/etc/fencegate/key",
                "FENCEGATE_LOG_LEVEL", "DEBUG", "FENCEGATE_TEST_DB_URL", "jdbc:postgresql://db/test", "FENCEGATE_REQUIRE_NGINX", "1",
                "FENCEGATE_SEED", "42"));

        assertThat(status).as(err.toString()).isZero();
        assertThat(lines()).contains("token-key-file = \"\" (default)");
        assertThat(err.toString().lines()).containsExactly(
                "FENCEGATE_TOKEN_KEYFILE is set but no setting reads it (a misspelt variable leaves its setting at the default)");
    }

    /**
     * An empty FENCEGATE_DB_SCHEMA is shown as given and refused, where it used to show the
     * default schema and exit 0: serve would have started on an empty fence table.
     */
    @Test
    void anEmptyVariableForTheFenceSchemaExitsTwoNamingTheVariable() {
        int status = run(Map.of("FENCEGATE_DB_SCHEMA", ""), "--upstream", "http://store:9000");

        assertThat(lines()).contains("db-schema = \"\" (env)");
        assertRefused(status, "--db-schema: given empty (expected a value; unset FENCEGATE_DB_SCHEMA", "; set by FENCEGATE_DB_SCHEMA");
    }

    /** Left out, each is off, as before. */
    @Test
    void theSameSettingsLeftOutAreOff() {
        int status = run(Map.of("FENCEGATE_DB_USER", ""), "--upstream", "http://store:9000");

        assertThat(status).as(err.toString()).isZero();
        assertThat(lines()).contains("token-key-file = \"\" (default)", "admin-token = \"\" (default)");
    }

    @Test
    void isASubcommandOfFencegate() {
        assertThat(Fencegate.commandLine().getSubcommands()).containsKey("check-config");
    }

    private int run(Map<String, String> env, String... args) {
        CommandLine cli = new CommandLine(new CheckConfigCommand(env));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private void assertRefused(int status, String start, String more) {
        assertThat(status).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).startsWith(start).contains(more);
        err.getBuffer().setLength(0);
        out.getBuffer().setLength(0);
    }

    private List<String> lines() {
        return out.toString().lines().toList();
    }
}
