package dev.fencegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Fencegate;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A bad setting is one line that names it and a pointer to --help: no usage screen, no stack trace. */
class ShortErrorsTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void aBadValueIsOneLineAndAPointerToHelp() {
        int status = run("serve", "--upstream", "http://127.0.0.1:9", "--fence-timeout", "5");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString().lines().toList()).containsExactly(
                "--fence-timeout: '5' (expected a duration such as 500ms, 5s, 2m, 6h or 7d)",
                "See 'java -jar fencegate.jar serve --help' for every setting and its default.");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void anUnknownFlagIsNamedWithASuggestionAndNoUsageScreen() {
        int status = run("serve", "--upstream", "http://127.0.0.1:9", "--lisen", "127.0.0.1:8080");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("'--lisen'").contains("Possible solutions: --listen")
                .contains("See 'java -jar fencegate.jar serve --help'").doesNotContain("Usage:");
        assertThat(err.toString().lines().count()).isLessThanOrEqualTo(4);
    }

    @Test
    void theDemosCommandsTriedOnTheGatewaysJarPointToTheDemosJar() {
        for (String command : new String[] {"demo", "store"}) {
            StringWriter errors = new StringWriter();
            CommandLine line = Fencegate.commandLine();
            line.setErr(new PrintWriter(errors));
            assertThat(line.execute(command, "--listen", "127.0.0.1:9000")).isEqualTo(2);
            assertThat(errors.toString()).as(command).contains("index 0: '" + command + "'")
                    .contains("java -jar demo/target/fencegate-demo.jar --help")
                    .as("the settings are serve's: the top level's help lists only commands")
                    .contains("See 'java -jar fencegate.jar serve --help' for every setting and its default.");
        }
        assertThat(run("serve", "--upstream", "http://127.0.0.1:9", "--lisen", "x")).isEqualTo(2);
        assertThat(err.toString()).doesNotContain("demo");
    }

    @Test
    void thePointerToHelpNamesACommandThatRuns() {
        run("check-config", "--upstream", "http://127.0.0.1:9", "--lisen", "127.0.0.1:8080");

        assertThat(err.toString()).endsWith("See 'java -jar fencegate.jar check-config --help' for every setting and its default."
                + System.lineSeparator());
    }

    @Test
    void aBinaryTokenKeyFileIsAClearErrorNotAStackTrace() throws IOException {
        Path key = Files.write(dir.resolve("key.bin"), new byte[] {(byte) 0xC3, 0x28, 0x00, (byte) 0xFF, (byte) 0xFE, 0x01, 0x02, 0x03});

        int status = run("serve", "--upstream", "http://127.0.0.1:9", "--token-key-file", key.toString());

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).startsWith("--token-key-file: '" + key + "' holds binary data, not UTF-8 text")
                .contains("openssl rand -base64 48").doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(err.toString().lines().count()).isEqualTo(2);
    }

    /** An unset variable in {@code --token-key-file "$KEYFILE"} must not start a gateway that checks no signatures. */
    @Test
    void anEmptyTokenKeyFileStopsServeNamingTheFlag() {
        // The admin port off loopback without a token would stop it too, but only after every setting is read.
        int status = run("serve", "--upstream", "http://127.0.0.1:9", "--admin-listen", "0.0.0.0:0", "--token-key-file", "");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).startsWith("--token-key-file: given empty (expected a value;");
        assertThat(err.toString().lines().count()).isEqualTo(2);
    }

    @Test
    void checkConfigSaysTheSameAboutAKeyTooShort() throws IOException {
        Path key = Files.writeString(dir.resolve("key.txt"), "short-key\n");

        int status = run("check-config", "--upstream", "http://127.0.0.1:9", "--token-key-file", key.toString());

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("--token-key-file: '" + key + "' holds a key of 9 bytes (expected a text file");
    }

    private int run(String... args) {
        CommandLine command = Fencegate.commandLine();
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        return command.execute(args);
    }
}
