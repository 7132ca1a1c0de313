package dev.fencegate.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * A PostgreSQL for the demo and the tests: the one at the given URL when it answers, otherwise
 * an embedded one started from the binaries shipped in a jar. Never used by {@code serve}.
 */
public final class LocalPostgres implements AutoCloseable {

    private final String url;
    private final String user;
    private final String password;
    private final String description;
    private final EmbeddedPostgres embedded;

    private LocalPostgres(String url, String user, String password, String description, EmbeddedPostgres embedded) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.description = description;
        this.embedded = embedded;
    }

    public static LocalPostgres connectOrStart(String url, String user, String password) {
        SQLException refused = tryConnect(url, user, password);
        if (refused == null) {
            return new LocalPostgres(url, user, password, "PostgreSQL at " + url, null);
        }
        try {
            EmbeddedPostgres embedded = EmbeddedPostgres.builder().start();
            String embeddedUrl = embedded.getJdbcUrl("postgres", "postgres");
            return new LocalPostgres(embeddedUrl, "postgres", "", "embedded PostgreSQL at " + embeddedUrl
                    + " (none answered at " + url + ": " + refused.getMessage() + ")", embedded);
        } catch (IOException e) {
            throw new UncheckedIOException("no PostgreSQL answered at " + url + " and an embedded one did not start", e);
        }
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

    @Override
    public void close() {
        if (embedded != null) {
            try {
                embedded.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
