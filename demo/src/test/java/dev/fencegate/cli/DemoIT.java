package dev.fencegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.demo.RedisLeaseStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The README's demo command tells both stories and exits 0 only when each ended as it should. */
class DemoIT {

    private static final Path JAR = Path.of("target", "fencegate-demo.jar");
    private static final String TEST_DB_URL = System.getProperty("fencegate.test.db-url",
            System.getenv().getOrDefault("FENCEGATE_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/test"));

    @Test
    void theDemoRefusesTheStaleWriteAndNamesTheReusedToken() throws Exception {
        Path temporary = Files.createTempDirectory("fencegate-demo-tmp");
        String printed = runDemo("-Djava.io.tmpdir=" + temporary, "-jar", JAR.toString(), "--db-url", TEST_DB_URL);

        assertThat(printed).contains("using database ").contains("-> 412").contains("stale-token")
                .contains("store still holds: \"B's report\"");
        if (RedisLeaseStore.available()) {
            assertThat(printed).contains("reused-token").contains("with the same token");
        }
        try (Stream<Path> left = Files.list(temporary)) {
            assertThat(left).as("what the demo left in its temporary folder (the Redis servers' included)").isEmpty();
        }
        Files.delete(temporary);
    }

    @Test
    void withNoPostgresAnsweringTheDemoRunsOnADurableEmbeddedOneAFreshWriteLandsAndAStaleOneIsRefused() throws Exception {
        String printed = runDemo("-jar", JAR.toString(), "--db-url", "jdbc:postgresql://127.0.0.1:1/postgres");

        assertThat(printed).contains("using database fencegate_demo_")
                .contains("embedded PostgreSQL").contains("fsync on, synchronous_commit on")
                .contains("none answered at jdbc:postgresql://127.0.0.1:1/postgres");
        assertThat(printed).containsPattern("B writes with token 2 +-> 20[0-9]")
                .contains("-> 412").contains("stale-token").contains("store still holds: \"B's report\"")
                .doesNotContain("UNEXPECTED");
    }

    /** @param args the java command's, {@code -jar} included */
    private static String runDemo(String... args) throws Exception {
        Path output = Files.createTempFile("fencegate-demo", ".out");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(List.of(args));
        Process demo = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertThat(demo.waitFor(180, TimeUnit.SECONDS)).as("the demo ends").isTrue();
        String printed = Files.readString(output);
        assertThat(demo.exitValue()).as(printed).isZero();
        return printed;
    }
}
