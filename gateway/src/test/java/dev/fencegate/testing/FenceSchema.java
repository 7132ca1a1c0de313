package dev.fencegate.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * The fence tables of one schema as an operator (or a fault) sees them from outside the gateways:
 * a connection of its own per call, so a test holds no PostgreSQL connection between steps.
 */
public record FenceSchema(String schema) {

    /** The fence recorded for {@code resource}; -1 when there is none. */
    public long fence(String resource) {
        return query("SELECT token FROM " + schema + ".fence WHERE resource = ?", resource);
    }

    /** Registrations in {@code fence_inflight} for {@code resource}, expired ones included. */
    public long registrations(String resource) {
        return query("SELECT count(*) FROM " + schema + ".fence_inflight WHERE resource = ?", resource);
    }

    /** Deletes every registration row, as a lost row (asynchronous replica promoted) or a careless operator would. */
    public int deleteRegistrations() {
        return update("DELETE FROM " + schema + ".fence_inflight");
    }

    /** Ends every PostgreSQL backend the gateways of this schema hold (they name it in application_name). */
    public int terminateGatewayBackends() {
        return update("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'fencegate/" + schema
                + "' AND pid <> pg_backend_pid()");
    }

    /** Makes the record of a multipart upload id {@code age} old, as if it had been created that long ago. */
    public int ageUpload(String uploadId, Duration age) {
        String sql = "UPDATE " + schema + ".multipart_upload SET created_at = now() - make_interval(secs => ?) WHERE upload_id = ?";
        try (Connection connection = connect(); PreparedStatement update = connection.prepareStatement(sql)) {
            update.setDouble(1, age.toSeconds());
            update.setString(2, uploadId);
            return update.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Whether a record of the multipart upload id is in the table, expired or not. */
    public boolean uploadRecorded(String uploadId) {
        return query("SELECT count(*) FROM " + schema + ".multipart_upload WHERE upload_id = ?", uploadId) > 0;
    }

    private long query(String sql, String key) {
        try (Connection connection = connect(); PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, key);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : -1;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private int update(String sql) {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            if (statement.execute(sql)) {
                int rows = 0;
                try (ResultSet result = statement.getResultSet()) {
                    while (result.next()) {
                        rows++;
                    }
                }
                return rows;
            }
            return statement.getUpdateCount();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static Connection connect() throws SQLException {
        var server = TestPostgres.server();
        return DriverManager.getConnection(server.url(), server.user(), server.password());
    }
}
