package dev.fencegate.testing;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * Debian's PgBouncer in front of the tests' PostgreSQL, in transaction pooling mode, with the
 * startup options the gateway sends ignored (an operator's way past PgBouncer's refusal of them).
 * When it is not installed, tests using it are skipped, unless FENCEGATE_REQUIRE_PGBOUNCER is set
 * (CI sets it): then its absence fails them.
 */
public final class PgBouncer implements AutoCloseable {

    public static final String REQUIRE_VARIABLE = "FENCEGATE_REQUIRE_PGBOUNCER";
    private static final Path BINARY = Path.of("/usr/sbin/pgbouncer");
    private static final Pattern JDBC = Pattern.compile("jdbc:postgresql://([^:/]+):([0-9]+)/([^?]+).*");

    private final Process process;
    private final Path directory;
    private final String url;

    private PgBouncer(Process process, Path directory, String url) {
        this.process = process;
        this.directory = directory;
        this.url = url;
    }

    /** PgBouncer in transaction mode in front of the server and database {@code jdbcUrl} names. */
    public static PgBouncer transactionMode(String jdbcUrl) throws IOException {
        WebDavProcess.requireInstalled(BINARY, REQUIRE_VARIABLE);
        Matcher server = JDBC.matcher(jdbcUrl);
        if (!server.matches()) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host:port/database URL: " + jdbcUrl);
        }
        Path directory = Files.createTempDirectory("fencegate-pgbouncer");
        int port = WebDavProcess.freePort();
        Path config = directory.resolve("pgbouncer.ini");
        Files.writeString(config, """
                [databases]
                * = host=%s port=%s user=postgres

                [pgbouncer]
                listen_addr = 127.0.0.1
                listen_port = %d
                unix_socket_dir =
                auth_type = any
                pool_mode = transaction
                default_pool_size = 4
                ignore_startup_parameters = extra_float_digits,options
                logfile = %s
                pidfile = %s
                """.formatted(server.group(1), server.group(2), port, directory.resolve("pgbouncer.log"),
                directory.resolve("pgbouncer.pid")));
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            // PgBouncer will not run as root.
            UserPrincipal postgres = directory.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(directory, postgres);
            Files.setOwner(config, postgres);
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.addAll(List.of(BINARY.toString(), config.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(directory.resolve("stdout.log").toFile()).start();
        PgBouncer bouncer = new PgBouncer(process, directory,
                "jdbc:postgresql://127.0.0.1:" + port + "/" + server.group(3) + "?prepareThreshold=0");
        Runtime.getRuntime().addShutdownHook(new Thread(bouncer::close));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !process.isAlive() || listening(port));
        if (!process.isAlive()) {
            throw new IllegalStateException("pgbouncer exited with " + process.exitValue() + ": "
                    + Files.readString(directory.resolve("stdout.log")));
        }
        return bouncer;
    }

    private static boolean listening(int port) {
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The JDBC URL of the tests' database through PgBouncer. */
    public String url() {
        return url;
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor();
            try (var files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            // left for the system's temp cleanup
        }
    }
}
