package dev.fencegate.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PostgreSQL for the demo and the tests: the one at the given URL when it answers, otherwise
 * an embedded one started from the binaries shipped in a jar. Never used by {@code serve}.
 * Callers work in a database of their own ({@link #createDatabase}), dropped when they close it.
 */
public final class LocalPostgres implements AutoCloseable {

    private static final Pattern JDBC_URL = Pattern.compile("(jdbc:postgresql://[^/?]*/)([^?]*)(.*)");

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
     * run) are dropped first, when the server is on loopback and so on this host.
     */
    public LocalPostgres createDatabase(String prefix) {
        String name = prefix + ProcessHandle.current().pid();
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            if (onLoopback()) {
                for (String abandoned : abandoned(statement, prefix)) {
                    statement.execute("DROP DATABASE IF EXISTS " + abandoned + " WITH (FORCE)");
                }
            }
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            statement.execute("CREATE DATABASE " + name);
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

    private static List<String> abandoned(Statement statement, String prefix) throws SQLException {
        List<String> names = new ArrayList<>();
        try (ResultSet rows = statement.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE '"
                + prefix.replace("_", "\\_") + "%'")) {
            while (rows.next()) {
                String name = rows.getString(1);
                String pid = name.substring(prefix.length());
                if (pid.matches("[0-9]{1,18}") && ProcessHandle.of(Long.parseLong(pid)).isEmpty()) {
                    names.add(name);
                }
            }
        }
        return names;
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
