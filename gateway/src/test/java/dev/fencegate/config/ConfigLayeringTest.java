package dev.fencegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Settings come from the built-in default, then the --config file, then FENCEGATE_* variables,
 * then flags, each overriding the one before; a bad file or value fails naming the key and where it was set.
 */
class ConfigLayeringTest {

    @TempDir
    Path dir;

    @Command(name = "config-layering-test")
    static final class Wrapper {
        @Mixin
        GatewayOptions options = new GatewayOptions();
    }

    @Test
    void aFlagBeatsTheEnvironmentWhichBeatsTheFileWhichBeatsTheDefault() throws IOException {
        Path file = file("""
                upstream: http://from-file:9000
                db-pool-size: 3
                fence-timeout: 3s
                listen: 127.0.0.1:3000
                """);
        Map<String, String> env = Map.of("FENCEGATE_DB_POOL_SIZE", "5", "FENCEGATE_FENCE_TIMEOUT", "5s");

        EffectiveSettings settings = settingsOf(env, "--config", file.toString(), "--fence-timeout", "7s");
        GatewayConfig config = GatewayConfigReader.read(settings);

        assertThat(config.database().checkTimeout()).as("flag over env and file").isEqualTo(Duration.ofSeconds(7));
        assertThat(config.database().poolSize()).as("env over file").isEqualTo(5);
        assertThat(config.listen()).as("file over default").isEqualTo(new HostPort("127.0.0.1", 3000));
        assertThat(config.upstream().getHost()).as("file alone").isEqualTo("from-file");
        assertThat(config.clientIdleTimeout()).as("default").isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.get(Setting.FENCE_TIMEOUT).source()).isEqualTo(SettingValue.Source.FLAG);
        assertThat(settings.get(Setting.DB_POOL_SIZE).source()).isEqualTo(SettingValue.Source.ENV);
        assertThat(settings.get(Setting.LISTEN).source()).isEqualTo(SettingValue.Source.FILE);
        assertThat(settings.get(Setting.CLIENT_IDLE_TIMEOUT).source()).isEqualTo(SettingValue.Source.DEFAULT);
    }

    @Test
    void theFileCanBeNamedByTheEnvironmentAndTheFlagWinsOverIt() throws IOException {
        Path byEnv = file("db-user: from-env-file\n");
        Path byFlag = Files.writeString(dir.resolve("other.yml"), "db-user: from-flag-file\n");

        EffectiveSettings namedByEnv = settingsOf(Map.of("FENCEGATE_CONFIG", byEnv.toString()));
        EffectiveSettings namedByBoth = settingsOf(Map.of("FENCEGATE_CONFIG", byEnv.toString()), "--config", byFlag.toString());

        assertThat(namedByEnv.text(Setting.DB_USER)).isEqualTo("from-env-file");
        assertThat(namedByEnv.lines().get(0)).isEqualTo("config = " + byEnv + " (env)");
        assertThat(namedByBoth.text(Setting.DB_USER)).isEqualTo("from-flag-file");
        assertThat(namedByBoth.lines().get(0)).isEqualTo("config = " + byFlag + " (flag)");
    }

    /** A variable set to nothing counts as unset, as ${VAR:-default} does: compose files often write FOO= for "none". */
    @Test
    void anEmptyVariableDoesNotOverride() throws IOException {
        Path file = file("db-user: from-file\n");

        EffectiveSettings settings = settingsOf(Map.of("FENCEGATE_DB_USER", ""), "--config", file.toString());

        assertThat(settings.get(Setting.DB_USER).value()).isEqualTo("from-file");
    }

    /**
     * An empty variable of a setting that names the fence table or the naming is refused, naming
     * the variable: counted as unset, it would switch the gateway to the default database, schema
     * or store kind, whose fence table knows none of the resources fenced in the real one. It
     * is refused over a file's value as well: which of the two was meant cannot be told.
     */
    @Test
    void anEmptyVariableForTheFenceDatabaseSchemaOrStoreKindStopsTheStart() throws IOException {
        Path file = file("upstream: http://store:9000\ndb-url: jdbc:postgresql://db/fences\ndb-schema: fences\nstore-kind: http\n");
        for (Setting setting : List.of(Setting.DB_URL, Setting.DB_SCHEMA, Setting.STORE_KIND)) {
            Map<String, String> env = Map.of(setting.variable(), "");

            Throwable alone = catchThrowable(() -> GatewayConfigReader.read(settingsOf(env, "--upstream", "http://store:9000")));
            Throwable overFile = catchThrowable(() -> GatewayConfigReader.read(settingsOf(env, "--config", file.toString())));

            assertRefusedAsEmpty(alone, setting);
            assertRefusedAsEmpty(overFile, setting);
        }
    }

    private static void assertRefusedAsEmpty(Throwable refused, Setting setting) {
        assertThat(refused).as(setting.variable()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(setting.flag() + ": given empty (expected a value; unset " + setting.variable())
                .hasMessageEndingWith("; set by " + setting.variable());
    }

    /** A flag wins over the variable, empty or not: the variable is then not read. */
    @Test
    void aFlagOverAnEmptyVariableForTheFenceDatabaseIsRead() {
        Map<String, String> env = Map.of("FENCEGATE_DB_URL", "", "FENCEGATE_DB_SCHEMA", "", "FENCEGATE_STORE_KIND", "");

        GatewayConfig config = GatewayConfigReader.read(settingsOf(env, "--upstream", "http://store:9000",
                "--db-url", "jdbc:postgresql://db/fences", "--db-schema", "fences", "--store-kind", "http"));

        assertThat(config.database().url()).isEqualTo("jdbc:postgresql://db/fences");
        assertThat(config.database().schema()).isEqualTo("fences");
        assertThat(config.limits().storeKind()).isEqualTo(StoreKind.HTTP);
    }

    /**
     * A key left without a value in the file is refused, naming the key and the file: read as the
     * default, a template that rendered an unset variable as nothing would switch a deployment to
     * the default database, schema or store kind without a word. It used to pass check-config as
     * an empty value and fail only when the start connected.
     */
    @Test
    void aKeyWithoutAValueInTheFileIsRefusedNamingTheKeyAndTheFile() throws IOException {
        for (String key : List.of("db-user", "db-url", "db-schema", "store-kind", "virtual-host-domains", "db-pool-size")) {
            Path file = file("upstream: http://store:9000\n" + key + ":\n");

            Throwable refused = catchThrowable(() -> GatewayConfigReader.read(settingsOf(Map.of(), "--config", file.toString())));

            assertThat(refused).as(key).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--" + key + ": given empty").hasMessageContaining("remove the key")
                    .hasMessageContaining(key + " in " + file);
        }
    }

    /** YAML 1.1 reads a bare off as false; the file means the word it shows. */
    @Test
    void valuesAreReadAsWrittenNotAsYamlBooleans() throws IOException {
        Path file = file("upstream: http://store:9000\naccess-log: off\nallow-unsafe-durability: true\n");

        GatewayConfig config = GatewayConfigReader.read(settingsOf(Map.of(), "--config", file.toString()));

        assertThat(config.operations().accessLog()).isEqualTo(AccessLogFormat.OFF);
        assertThat(config.safety().allowUnsafeDurability()).isTrue();
    }

    @Test
    void anUnknownKeyFailsNamingTheKeyAndTheFile() throws IOException {
        Path file = file("upstream: http://store:9000\nfence-timout: 2s\n");

        Throwable failure = catchThrowable(() -> settingsOf(Map.of(), "--config", file.toString()));

        assertThat(failure).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown key 'fence-timout'")
                .hasMessageContaining(file.toString())
                .hasMessageContaining("line 2")
                .hasMessageContaining("expected one of: listen, admin-listen");
    }

    @Test
    void aBadValueFromTheFileNamesTheKeyAndTheFile() throws IOException {
        Path file = file("upstream: http://store:9000\ndb-pool-size: many\n");

        Throwable failure = catchThrowable(() -> GatewayConfigReader.read(settingsOf(Map.of(), "--config", file.toString())));

        assertThat(failure).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--db-pool-size: 'many' (expected an integer)")
                .hasMessageContaining("set by db-pool-size in " + file);
    }

    /** A value that parses but is out of range is blamed on where it was set, too. */
    @Test
    void anOutOfRangeValueFromTheEnvironmentNamesTheVariable() {
        Throwable failure = catchThrowable(() -> GatewayConfigReader.read(settingsOf(
                Map.of("FENCEGATE_UPSTREAM", "http://store:9000", "FENCEGATE_DB_POOL_SIZE", "0"))));

        assertThat(failure).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--db-pool-size: 0 (expected 1 to 1000); set by FENCEGATE_DB_POOL_SIZE");
    }

    @Test
    void aListValueOrBrokenYamlFailsNamingTheFile() throws IOException {
        Path list = file("listen: [a, b]\n");
        Path scopes = Files.writeString(dir.resolve("scopes.yml"), "scopes:\n  - /{b}/{job}/**\n");
        Path broken = Files.writeString(dir.resolve("broken.yml"), "listen: 127.0.0.1:1\nlisten: 127.0.0.1:2\n");

        assertThat(catchThrowable(() -> settingsOf(Map.of(), "--config", list.toString())))
                .hasMessageContaining("key 'listen'").hasMessageContaining("expected a single value").hasMessageContaining(list.toString())
                .hasMessageNotContaining("comma");
        assertThat(catchThrowable(() -> settingsOf(Map.of(), "--config", scopes.toString())))
                .hasMessageContaining("key 'scopes'").hasMessageContaining("comma-separated, as on the command line: scopes: \"a,b\"");
        assertThat(catchThrowable(() -> settingsOf(Map.of(), "--config", broken.toString())))
                .hasMessageContaining("--config: " + broken).hasMessageContaining("Duplicate field 'listen'");
    }

    /**
     * A second document used to go unread, with its keys, a misspelt one among them: the file
     * is refused instead, naming where that document begins.
     */
    @Test
    void aFileEndingInEmptyDocumentsIsReadLikeOneWithout() throws IOException {
        Path markerAtEnd = file("upstream: http://store:9000\ndb-schema: fences\n---\n");
        Path emptiesAtEnd = Files.writeString(dir.resolve("empties.yml"), "db-schema: fences\n---\n~\n---\n# nothing\n");

        assertThat(settingsOf(Map.of(), "--config", markerAtEnd.toString()).get(Setting.DB_SCHEMA).value()).isEqualTo("fences");
        assertThat(settingsOf(Map.of(), "--config", emptiesAtEnd.toString()).get(Setting.DB_SCHEMA).value()).isEqualTo("fences");
        // An empty document before one with settings still leaves those settings unread.
        Path emptyThenSettings = Files.writeString(dir.resolve("empty-then.yml"), "db-schema: fences\n---\n---\nfence-timout: 2s\n");
        assertThat(catchThrowable(() -> settingsOf(Map.of(), "--config", emptyThenSettings.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--config: " + emptyThenSettings + " (expected one YAML document; another begins at line 4, and its"
                        + " settings would not be read)");
    }

    @Test
    void aFileOfMoreThanOneDocumentIsRefused() throws IOException {
        Path two = file("upstream: http://store:9000\n---\ndb-schema: fences\nfence-timout: 2s\n");
        Path emptyFirst = Files.writeString(dir.resolve("empty-first.yml"), "---\n---\ndb-schema: fences\n");
        Path scalarAfter = Files.writeString(dir.resolve("scalar-after.yml"), "---\ndb-schema: fences\n--- text\n");

        assertThat(catchThrowable(() -> settingsOf(Map.of(), "--config", two.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--config: " + two + " (expected one YAML document; another begins at line 3, and its settings"
                        + " would not be read)");
        assertThat(catchThrowable(() -> settingsOf(Map.of(), "--config", emptyFirst.toString())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--config: " + emptyFirst + " (expected");
        assertThat(catchThrowable(() -> settingsOf(Map.of(), "--config", scalarAfter.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--config: " + scalarAfter + " (expected one YAML document");
    }

    /** A document's explicit end ({@code ...}) is no second document. */
    @Test
    void oneDocumentWithItsMarkersIsRead() throws IOException {
        Path marked = file("---\ndb-schema: fences\n...\n");

        assertThat(settingsOf(Map.of(), "--config", marked.toString()).text(Setting.DB_SCHEMA)).isEqualTo("fences");
    }

    @Test
    void aMissingFileFailsNamingIt() {
        Path missing = dir.resolve("absent.yml");

        assertThat(catchThrowable(() -> settingsOf(Map.of(), "--config", missing.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--config: " + missing).hasMessageContaining("expected a readable YAML file");
    }

    @Test
    void anEmptyFileSetsNothing() throws IOException {
        Path empty = file("");

        EffectiveSettings settings = settingsOf(Map.of(), "--config", empty.toString());

        assertThat(settings.values().values()).allMatch(value -> value.source() == SettingValue.Source.DEFAULT);
    }

    private Path file(String yaml) throws IOException {
        return Files.writeString(dir.resolve("fencegate.yml"), yaml);
    }

    private static EffectiveSettings settingsOf(Map<String, String> env, String... args) {
        Wrapper wrapper = new Wrapper();
        new CommandLine(wrapper).parseArgs(new ArrayList<>(List.of(args)).toArray(String[]::new));
        return wrapper.options.settings(env);
    }
}
