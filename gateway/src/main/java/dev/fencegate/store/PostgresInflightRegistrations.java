package dev.fencegate.store;

import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.RegistrationRows;
import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * This instance's rows in {@code fence_inflight}, one statement per operation. What the rows
 * mean and when they are written is decided by {@link dev.fencegate.fence.InstanceFences}. Each
 * row carries a generation so a withdrawal never removes a row that a concurrent write has just
 * renewed.
 */
public final class PostgresInflightRegistrations implements RegistrationRows {

    /**
     * This instance's rows for the given resources, lowest token kept, generation bumped; binds the
     * instance, the row length in seconds, the resources and their minimum tokens. Also the first
     * step of {@link RaiseOrJudge}, where it shares the batch's commit.
     */
    static final String WRITE = """
            INSERT INTO fence_inflight AS i (resource, instance, min_token, until, generation)
            SELECT r.resource, ?, r.min_token, now() + make_interval(secs => ?), 1
            FROM unnest(?::text[], ?::bigint[]) AS r(resource, min_token)
            ON CONFLICT (resource, instance) DO UPDATE
                SET min_token = least(i.min_token, EXCLUDED.min_token),
                    until = greatest(i.until, EXCLUDED.until),
                    generation = i.generation + 1
            RETURNING resource, min_token, generation""";
    private static final String WITHDRAW = "DELETE FROM fence_inflight WHERE resource = ? AND instance = ? AND generation = ?";
    private static final String NARROW = "UPDATE fence_inflight SET min_token = ? WHERE resource = ? AND instance = ? AND generation = ?";

    private final DataSource dataSource;
    private final UUID instance;

    public PostgresInflightRegistrations(DataSource dataSource, UUID instance) {
        this.dataSource = dataSource;
        this.instance = instance;
    }

    /** In resource order (the caller's map is sorted), so two writes never wait on each other's rows in a cycle. */
    @Override
    public List<Written> write(Map<ResourceKey, Long> minTokens, Duration length) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement upsert = connection.prepareStatement(WRITE)) {
            upsert.setObject(1, instance);
            upsert.setDouble(2, length.toNanos() / 1e9);
            upsert.setArray(3, connection.createArrayOf("text", minTokens.keySet().stream().map(ResourceKey::value).toArray()));
            upsert.setArray(4, connection.createArrayOf("bigint", minTokens.values().toArray()));
            List<Written> written = new ArrayList<>(minTokens.size());
            try (ResultSet row = upsert.executeQuery()) {
                while (row.next()) {
                    written.add(new Written(new ResourceKey(row.getString(1)), row.getLong(2), row.getLong(3)));
                }
            }
            return written;
        } catch (SQLException e) {
            throw new FenceStoreUnavailableException("in-flight registration for " + minTokens.size() + " resource(s), first "
                    + minTokens.keySet().iterator().next() + ", failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
        }
    }

    @Override
    public void tidy(List<Change> withdrawals, List<Change> narrowings) {
        try (Connection connection = dataSource.getConnection()) {
            batch(connection, WITHDRAW, withdrawals, (statement, row) -> {
                statement.setString(1, row.resource().value());
                statement.setObject(2, instance);
                statement.setLong(3, row.generation());
            });
            batch(connection, NARROW, narrowings, (statement, row) -> {
                statement.setLong(1, row.minToken());
                statement.setString(2, row.resource().value());
                statement.setObject(3, instance);
                statement.setLong(4, row.generation());
            });
        } catch (SQLException e) {
            // Harmless: a row left behind only delays other instances' raises until it expires.
        }
    }

    @Override
    public void withdrawAll() {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement("DELETE FROM fence_inflight WHERE instance = ?")) {
            delete.setObject(1, instance);
            delete.executeUpdate();
        } catch (SQLException e) {
            // The rows expire by themselves; a stop must not fail on it.
        }
    }

    private interface Binder {
        void bind(PreparedStatement statement, Change row) throws SQLException;
    }

    private static void batch(Connection connection, String sql, List<Change> rows, Binder binder) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (Change row : rows) {
                binder.bind(statement, row);
                statement.addBatch();
            }
            statement.executeBatch();
        }
    }
}
