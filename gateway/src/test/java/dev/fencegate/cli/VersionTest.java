package dev.fencegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Fencegate;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** Every command lists -V in its help, so every command answers it with the version. */
class VersionTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-V", "--version", "serve -V", "check-config -V", "sign -V", "serve --version"})
    void everyCommandPrintsTheVersion(String args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = Fencegate.commandLine();
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));

        int status = command.execute(args.split(" "));

        assertThat(status).isZero();
        assertThat(out.toString().strip()).isEqualTo("fencegate 0.1.0");
        assertThat(err.toString()).isEmpty();
    }
}
