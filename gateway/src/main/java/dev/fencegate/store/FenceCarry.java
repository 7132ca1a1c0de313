package dev.fencegate.store;

import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.ResourceNaming;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Carries the fences recorded under one naming to another: each key the new naming maps a recorded
 * key to is raised to the highest fence that maps there, never lowered. Runs inside the caller's
 * transaction, which commits the carry together with the record of the naming.
 */
final class FenceCarry {

    private static final int BATCH = 10_000;

    private FenceCarry() {
    }

    /**
     * Holds every other write to the fences back until the transaction ends (reads go on), so that
     * no raise lands between the carry's read and its raises; lifts the statement bound of the
     * gateway's sessions for this transaction, since a large table takes longer to read.
     */
    static void lock(Connection connection) throws SQLException {
        try (Statement lock = connection.createStatement()) {
            lock.execute("SET LOCAL statement_timeout = 0");
            lock.execute("LOCK TABLE fence IN SHARE ROW EXCLUSIVE MODE");
        }
    }

    /** Raises every key a recorded fence moves to under {@code naming}; returns how many rows it wrote. */
    static long raise(Connection connection, ResourceNaming naming) throws SQLException {
        Map<String, Long> raises = raisesToCarry(connection, naming.carrier());
        long raised = 0;
        String[] keys = raises.keySet().toArray(String[]::new);
        try (PreparedStatement upsert = connection.prepareStatement("""
                INSERT INTO fence AS f (resource, token) SELECT * FROM unnest(?::text[], ?::bigint[])
                ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at = now()
                    WHERE f.token < EXCLUDED.token""")) {
            for (int from = 0; from < keys.length; from += BATCH) {
                String[] batch = Arrays.copyOfRange(keys, from, Math.min(keys.length, from + BATCH));
                Long[] tokens = new Long[batch.length];
                for (int i = 0; i < batch.length; i++) {
                    tokens[i] = raises.get(batch[i]);
                }
                upsert.setArray(1, connection.createArrayOf("text", batch));
                upsert.setArray(2, connection.createArrayOf("bigint", tokens));
                raised += upsert.executeUpdate();
            }
        }
        return raised;
    }

    /** Every key a recorded fence moves up to, with the highest fence that moves there. */
    private static Map<String, Long> raisesToCarry(Connection connection, Function<ResourceKey, Optional<ResourceKey>> carrier)
            throws SQLException {
        Map<String, Long> raises = new HashMap<>();
        try (Statement select = connection.createStatement()) {
            select.setFetchSize(BATCH);
            try (ResultSet row = select.executeQuery("SELECT resource, token FROM fence")) {
                while (row.next()) {
                    long token = row.getLong(2);
                    carrier.apply(new ResourceKey(row.getString(1)))
                            .ifPresent(key -> raises.merge(key.value(), token, Math::max));
                }
            }
        }
        return raises;
    }
}
