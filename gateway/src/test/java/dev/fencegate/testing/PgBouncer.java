package dev.fencegate.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    private final WebDavProcess process;
    private final String url;

    private PgBouncer(WebDavProcess process, String url) {
        this.process = process;
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
        WebDavProcess process = WebDavProcess.start("pgbouncer", command, directory, port, List.of("stdout.log", "pgbouncer.log"));
        return new PgBouncer(process, "jdbc:postgresql://127.0.0.1:" + port + "/" + server.group(3) + "?prepareThreshold=0");
    }

    /** The JDBC URL of the tests' database through PgBouncer. */
    public String url() {
        return url;
    }

    @Override
    public void close() {
        process.close();
    }
}
