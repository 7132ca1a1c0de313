package dev.fencegate.loadtest.compare;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;

/**
 * Reads {@code xact_commit} of the gateway's database from {@code pg_stat_database}.
 * PostgreSQL 15 backends publish their counts late (an idle backend after about ten seconds),
 * so callers take readings only once the gateway has been quiet for {@link #SETTLE_MILLIS}.
 */
final class PgCommitCounter implements AutoCloseable {
    static final long SETTLE_MILLIS = 11_000;

    private final Connection connection;
    private final String database;

    private PgCommitCounter(Connection connection, String database) {
        this.connection = connection;
        this.database = database;
    }

    /** Empty, with the reason on stderr, when the database cannot be reached. */
    static Optional<PgCommitCounter> open(String url, String user, String password) {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        if (!password.isEmpty()) {
            properties.setProperty("password", password);
        }
        try {
            Connection connection = DriverManager.getConnection(url, properties);
            connection.setAutoCommit(true);
            return Optional.of(new PgCommitCounter(connection, connection.getCatalog()));
        } catch (SQLException e) {
            System.err.println("transactions per write will be missing: cannot connect to " + url + " as " + user
                    + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    long commits() {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = ?")) {
            query.setString(1, database);
            try (ResultSet row = query.executeQuery()) {
                if (!row.next()) {
                    throw new CompareException("pg_stat_database has no row for database " + database);
                }
                return row.getLong(1);
            }
        } catch (SQLException e) {
            throw new CompareException("cannot read pg_stat_database for " + database + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            System.err.println("closing the statistics connection: " + e.getMessage());
        }
    }
}
