package dev.fencegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.demo.RedisLeaseStore;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The README's run command tells both stories and exits 0 only when each ended as it should. */
class DemoIT {

    @Test
    void theDemoRefusesTheStaleWriteAndNamesTheReusedToken() throws Exception {
        Path output = Files.createTempFile("fencegate-demo", ".out");
        Process demo = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", GatewayProcess.JAR.toString(), "demo", "--db-url", TestPostgres.server().url()))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertThat(demo.waitFor(90, TimeUnit.SECONDS)).isTrue();
        String printed = Files.readString(output);

        assertThat(demo.exitValue()).as(printed).isZero();
        assertThat(printed).contains("database: ").contains("-> 412").contains("stale-token")
                .contains("store still holds: \"B's report\"");
        if (RedisLeaseStore.available()) {
            assertThat(printed).contains("reused-token").contains("with the same token");
        }
    }
}
