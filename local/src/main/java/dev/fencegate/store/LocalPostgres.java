package dev.fencegate.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PostgreSQL for the demo and the tests: the one at the given URL when it answers, otherwise
 * an embedded one started from the binaries shipped in a jar. Never used by {@code serve}.
 * Callers work in a database of their own ({@link #createDatabase}), dropped when they close it.
 */
public final class LocalPostgres implements AutoCloseable {

    private static final Pattern JDBC_URL = Pattern.compile("(jdbc:postgresql://[^/?]*/)([^?]*)(.*)");
    /** What follows the prefix in a database name {@link #createDatabase} makes: the pid, and a number if that was taken. */
    private static final Pattern OWN_NAME = Pattern.compile("([0-9]{1,18})(?:_[0-9]{1,9})?");
    /** Recorded on each database made here: the maker's PID namespace, its boot, and when, in seconds. */
    static final Pattern COMMENT = Pattern.compile("fencegate local database, made from pid namespace (.*), boot (.*), at ([0-9]{1,18})");
    /** Where this process's numbers mean something, as Linux names it; empty elsewhere, where every process shares one. */
    static final String NAMESPACE = read(() -> Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString());
    /** This boot of the host, as Linux names it; empty elsewhere. */
    static final String BOOT = read(() -> Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip());
    /** How old a database of another PID namespace (of this boot) must be to be taken as abandoned: no run lasts a day. */
    private static final Duration FOREIGN_ABANDONED_AFTER = Duration.ofDays(1);
    /** Held around the scan, the drops, the creation and its comment, so no run sees another's database half made. */
    private static final String LOCK = "SELECT pg_advisory_lock(hashtext('fencegate local databases'))";
    private static final String UNLOCK = "SELECT pg_advisory_unlock(hashtext('fencegate local databases'))";

    private final String url;
    private final String user;
    private final String password;
    private final String description;
    private final EmbeddedPostgres embedded;
    private final LocalPostgres server;

    private LocalPostgres(String url, String user, String password, String description, EmbeddedPostgres embedded,
                          LocalPostgres server) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.description = description;
        this.embedded = embedded;
        this.server = server;
    }

    /**
     * @throws IllegalStateException when a server answered at {@code url} and refused (an unknown
     *                               role or database, a wrong password): that is a setting to fix,
     *                               not a machine without PostgreSQL
     */
    public static LocalPostgres connectOrStart(String url, String user, String password) {
        SQLException refused = tryConnect(url, user, password);
        if (refused == null) {
            return new LocalPostgres(url, user, password, "PostgreSQL at " + url, null, null);
        }
        // Class 08 is a connection that was never made: refused, timed out, an unknown host.
        if (refused.getSQLState() == null || !refused.getSQLState().startsWith("08")) {
            throw new IllegalStateException("the PostgreSQL at " + url + " answered and refused user " + user + ": "
                    + refused.getMessage() + " (SQLState " + refused.getSQLState() + "; fix the URL or user, or name a port"
                    + " where none listens to run an embedded one)", refused);
        }
        try {
            EmbeddedPostgres embedded = startDurable();
            // Not getJdbcUrl(): its "?user=postgres" would override the user a caller connects as.
            String embeddedUrl = "jdbc:postgresql://localhost:" + embedded.getPort() + "/postgres";
            return new LocalPostgres(embeddedUrl, "postgres", "", "embedded PostgreSQL at " + embeddedUrl
                    + " (fsync on, synchronous_commit on; none answered at " + url + ": " + refused.getMessage() + ")",
                    embedded, null);
        } catch (IOException e) {
            throw new UncheckedIOException("no PostgreSQL answered at " + url + " and an embedded one did not start", e);
        }
    }

    /**
     * The embedded server starts with {@code fsync} and {@code synchronous_commit} off by default;
     * the gateway's durability guard rightly refuses every write on such a server, so turn both on.
     * A {@code -c fsync=on} comes after the library's {@code -F} on the command line, and the last wins.
     */
    private static EmbeddedPostgres startDurable() throws IOException {
        return EmbeddedPostgres.builder()
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on")
                .start();
    }

    /**
     * A new, empty database on this server, named {@code prefix + pid}; closing it drops it.
     * Databases of the same prefix left by processes of this host that are gone (a killed test
     * run) are dropped first, when the server is on loopback and so on this host. Each database
     * records the PID namespace and boot it was made in ({@link #COMMENT}): one made from another
     * namespace (a container sharing the server, whose process numbers are its own) is dropped only
     * once it is a day old or from an earlier boot, and a name it took is not taken again
     * ({@code prefix + pid + "_" + n} instead).
     */
    public LocalPostgres createDatabase(String prefix) {
        String name = prefix + ProcessHandle.current().pid();
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(LOCK);
            try {
                Map<String, String> made = madeWith(statement, prefix);
                if (onLoopback()) {
                    for (String abandoned : abandoned(made, prefix, Instant.now())) {
                        statement.execute("DROP DATABASE IF EXISTS " + abandoned + " WITH (FORCE)");
                    }
                }
                for (int n = 2; made.containsKey(name) && !ours(made.get(name)); n++) {
                    name = prefix + ProcessHandle.current().pid() + "_" + n;
                }
                statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                statement.execute("CREATE DATABASE " + name);
                statement.execute("COMMENT ON DATABASE " + name + " IS '" + comment(Instant.now()) + "'");
            } finally {
                statement.execute(UNLOCK);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name + " on " + url + ": " + e.getMessage(), e);
        }
        Matcher parts = JDBC_URL.matcher(url);
        if (!parts.matches()) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host/database URL: " + url);
        }
        String databaseUrl = parts.group(1) + name + parts.group(3);
        return new LocalPostgres(databaseUrl, user, password, "database " + name + " on " + description, null, this);
    }

    /** The databases named with {@code prefix}, each with the comment it was made with (null if none). */
    private static Map<String, String> madeWith(Statement statement, String prefix) throws SQLException {
        Map<String, String> made = new HashMap<>();
        try (ResultSet rows = statement.executeQuery("SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database"
                + " WHERE datname LIKE '" + prefix.replace("_", "\\_") + "%'")) {
            while (rows.next()) {
                made.put(rows.getString(1), rows.getString(2));
            }
        }
        return made;
    }

    /**
     * Those whose maker is gone: made from this PID namespace by a process no longer there (or made
     * before databases recorded their maker), made in an earlier boot, or made from another PID
     * namespace of this boot longer ago than any run lasts.
     */
    private static List<String> abandoned(Map<String, String> made, String prefix, Instant now) {
        List<String> names = new ArrayList<>();
        made.forEach((name, comment) -> {
            Matcher pid = OWN_NAME.matcher(name.substring(prefix.length()));
            if (!pid.matches()) {
                return;
            }
            boolean makerGone = ProcessHandle.of(Long.parseLong(pid.group(1))).isEmpty();
            Matcher maker = comment == null ? null : COMMENT.matcher(comment);
            if (maker == null) {
                if (makerGone) {
                    names.add(name);
                }
            } else if (maker.matches()) {
                // Two boots both named: another kernel's (a VM or a host of another system sharing loopback) names none, or not this one.
                boolean earlierBoot = !BOOT.isEmpty() && !maker.group(2).isEmpty() && !maker.group(2).equals(BOOT);
                boolean sameNamespace = maker.group(1).equals(NAMESPACE);
                boolean old = Instant.ofEpochSecond(Long.parseLong(maker.group(3))).plus(FOREIGN_ABANDONED_AFTER).isBefore(now);
                if (earlierBoot || sameNamespace && makerGone || !sameNamespace && old) {
                    names.add(name);
                }
            }
        });
        return names;
    }

    /** Whether a database so commented is this process's to drop and make again: made from here, or before comments. */
    private static boolean ours(String comment) {
        if (comment == null) {
            return true;
        }
        Matcher maker = COMMENT.matcher(comment);
        return maker.matches() && maker.group(1).equals(NAMESPACE) && maker.group(2).equals(BOOT);
    }

    static String comment(Instant at) {
        return "fencegate local database, made from pid namespace " + NAMESPACE + ", boot " + BOOT + ", at " + at.getEpochSecond();
    }

    private static String read(Callable<String> what) {
        try {
            return what.call();
        } catch (Exception e) {
            // Not Linux, or not allowed to look: one namespace and one boot, as far as this can tell.
            return "";
        }
    }

    private boolean onLoopback() {
        return embedded != null || url.matches("jdbc:postgresql://(127\\.0\\.0\\.1|localhost|\\[::1\\])[:/].*");
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    private static SQLException tryConnect(String url, String user, String password) {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("connectTimeout", "3");
        try (Connection ignored = DriverManager.getConnection(url, properties)) {
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** Which database is in use, for the output of the demo and the tests. */
    public String description() {
        return description;
    }

    /** Drops this database if {@link #createDatabase} made it; stops the server if it is embedded. */
    @Override
    public void close() {
        if (server != null) {
            String name = url.replaceAll(JDBC_URL.pattern(), "$2");
            try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
                // FORCE: pools and gateway processes still connected are cut rather than waited for.
                statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            } catch (SQLException e) {
                throw new IllegalStateException("could not drop database " + name + ": " + e.getMessage(), e);
            }
        }
        if (embedded != null) {
            try {
                embedded.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
