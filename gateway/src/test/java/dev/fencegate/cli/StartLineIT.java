package dev.fencegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * What the packaged gateway says when it starts: the ports it really bound, whether it is really
 * ready, and whether tokens must be signed.
 */
class StartLineIT {

    private static final Pattern READY = Pattern.compile("Fencegate ready on 127\\.0\\.0\\.1:(\\d+) \\(admin 127\\.0\\.0\\.1:(\\d+)\\)");

    @Test
    void theReadyLineShowsThePortsActuallyBoundAndAnUnreachableStoreOrAVariableNoSettingReadsIsAWarning() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("start_line"));
        int closedStorePort = GatewayProcess.freePort();
        Path key = Files.writeString(Files.createTempFile("fencegate-start", ".key"), "start-line-key-of-at-least-thirty-two-bytes\n");
        String output;
        try {
            // A misspelt variable, next to the flag it meant to give: the key is read from the flag only.
            output = runUntil("Fencegate ready on", database.url(), database, Map.of("FENCEGATE_TOKEN_KEYFILE", key.toString()),
                    "--upstream", "http://127.0.0.1:" + closedStorePort, "--token-key-file", key.toString());
        } finally {
            Files.deleteIfExists(key);
        }

        Matcher ready = READY.matcher(output);
        assertThat(ready.find()).as(output).isTrue();
        assertThat(Integer.parseInt(ready.group(1))).isPositive();
        assertThat(Integer.parseInt(ready.group(2))).isPositive();
        assertThat(output).contains("Store http://127.0.0.1:" + closedStorePort + " not reachable now (")
                .contains("WARN  ServeCommand - FENCEGATE_TOKEN_KEYFILE is set but no setting reads it");
        assertThat(output.lines().filter(line -> line.contains("Fencegate ready on"))).singleElement().asString()
                .endsWith(", tokens signed");
    }

    @Test
    void aMissingDatabaseIsOneLineAtStartAndTheGatewayDoesNotSayReady() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("start_line_bad"));
        URI server = URI.create(database.url().substring("jdbc:".length()));
        String url = "jdbc:postgresql://" + server.getHost() + ":" + server.getPort() + "/fencegate_no_such_database";
        String output = runUntil("Fencegate NOT READY", url, database, Map.of());

        assertThat(output).doesNotContain("Fencegate ready");
        assertThat(output.lines().filter(line -> line.contains("Fencegate NOT READY on 127.0.0.1:")))
                .singleElement().asString()
                .contains("), tokens unsigned: ")
                .contains("database \"fencegate_no_such_database\" does not exist (check the database named in --db-url)")
                .doesNotContain(":0 ");
    }

    @Test
    void aStartThatFailsOnAnErrorExitsOneNamingItRatherThanLingerHalfStarted() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("start_line_error"));
        // A damaged jar: a class the data port needs is missing, found after the fence database and the
        // admin port were started (their threads would keep the process alive).
        Path jar = Files.createTempFile("fencegate-damaged", ".jar");
        Files.copy(GatewayProcess.JAR, jar, StandardCopyOption.REPLACE_EXISTING);
        try (FileSystem zip = FileSystems.newFileSystem(jar)) {
            Files.delete(zip.getPath("io/netty/resolver/dns/DnsAddressResolverGroup.class"));
        }
        Path log = Files.createTempFile("fencegate-start", ".log");
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString(), "serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
                "--upstream", "http://127.0.0.1:" + GatewayProcess.freePort(),
                "--db-url", database.url(), "--db-schema", database.schema(), "--db-user", database.user(), "--db-pool-size", "2")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            boolean exited = process.waitFor(60, TimeUnit.SECONDS);
            String output = Files.readString(log);
            assertThat(exited).as("the process exits:\n" + output).isTrue();
            assertThat(process.exitValue()).as(output).isEqualTo(1);
            assertThat(output).contains("ERROR Fencegate - Fencegate stopped on an unexpected error")
                    .contains("java.lang.NoClassDefFoundError: io/netty/resolver/dns/DnsAddressResolverGroup")
                    .doesNotContain("Fencegate ready");
        } finally {
            process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
            Files.deleteIfExists(log);
            Files.deleteIfExists(jar);
        }
    }

    /** Runs the jar with ports 0 until its output has {@code line}; returns the output, then stops it. */
    private static String runUntil(String line, String dbUrl, DatabaseConfig database, Map<String, String> env, String... extra)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", GatewayProcess.JAR.toString(), "serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
                "--db-url", dbUrl, "--db-schema", database.schema(), "--db-user", database.user(), "--db-pool-size", "2"));
        command.addAll(List.of(extra));
        if (extra.length == 0) {
            command.addAll(List.of("--upstream", "http://127.0.0.1:" + GatewayProcess.freePort()));
        }
        Path log = Files.createTempFile("fencegate-start", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !process.isAlive() || Files.readString(log).contains(line));
            String output = Files.readString(log);
            assertThat(process.isAlive()).as(output).isTrue();
            Matcher ready = READY.matcher(output);
            if (ready.find()) {
                HttpResponse<String> readyz = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + ready.group(2) + "/readyz")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(readyz.statusCode()).as("the admin port the ready line names answers").isEqualTo(200);
            }
            return output;
        } finally {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            Files.deleteIfExists(log);
        }
    }
}
