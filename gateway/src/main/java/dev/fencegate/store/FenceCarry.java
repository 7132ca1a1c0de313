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
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Carries the fences recorded under one naming to another: each key the new naming maps a recorded
 * key to is raised to the highest fence that maps there, never lowered, and takes that fence's
 * holder with its token, so the holder who wrote at that token is not refused as another one
 * ({@code reused-token}) at its next write. Runs inside the caller's transaction, which commits the
 * carry together with the record of the naming.
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

    /** The highest fence carried to one key, and its holder (null when none is named or the tied ones disagree). */
    private record Carried(long token, String holder) {

        /**
         * Two fences carried to one key at the same token with different holders (one of them
         * none) were both admitted, as fences of separate objects: neither holder is known to be
         * the current one, so none is named here. As at any fence raised without a holder, the
         * first of them to write again names it ({@link FirstHolders}), and the other is then
         * refused as reused: one fence, two holders of one token. A lower token is refused all the same.
         */
        Carried with(Carried other) {
            if (token != other.token) {
                return token > other.token ? this : other;
            }
            return Objects.equals(holder, other.holder) ? this : new Carried(token, null);
        }
    }

    /**
     * Raises every key a recorded fence moves to under {@code naming}; returns how many rows it
     * wrote. A raised row takes the carried holder with the token. A row already at the carried
     * token whose holder differs (either may be none) keeps its token and names no holder, for
     * the reason {@link Carried#with} gives: both holders were admitted at that token. A row above
     * it is left alone: its holder wrote at its fence.
     */
    static long raise(Connection connection, ResourceNaming naming) throws SQLException {
        Map<String, Carried> raises = raisesToCarry(connection, naming.carrier());
        long raised = 0;
        String[] keys = raises.keySet().toArray(String[]::new);
        try (PreparedStatement upsert = connection.prepareStatement("""
                INSERT INTO fence AS f (resource, token, holder) SELECT * FROM unnest(?::text[], ?::bigint[], ?::text[])
                ON CONFLICT (resource) DO UPDATE
                    SET token = EXCLUDED.token, updated_at = now(),
                        holder = CASE WHEN f.token < EXCLUDED.token THEN EXCLUDED.holder END
                    WHERE f.token < EXCLUDED.token
                        OR (f.token = EXCLUDED.token AND f.holder IS NOT NULL AND f.holder IS DISTINCT FROM EXCLUDED.holder)""")) {
            for (int from = 0; from < keys.length; from += BATCH) {
                String[] batch = Arrays.copyOfRange(keys, from, Math.min(keys.length, from + BATCH));
                long[] tokens = new long[batch.length];
                String[] holders = new String[batch.length];
                for (int i = 0; i < batch.length; i++) {
                    Carried carried = raises.get(batch[i]);
                    tokens[i] = carried.token();
                    holders[i] = carried.holder();
                }
                upsert.setArray(1, SqlArrays.texts(connection, batch));
                upsert.setArray(2, SqlArrays.bigints(connection, tokens));
                upsert.setArray(3, SqlArrays.texts(connection, holders));
                raised += upsert.executeUpdate();
            }
        }
        return raised;
    }

    /** Every key a recorded fence moves up to, with the highest fence that moves there and its holder. */
    private static Map<String, Carried> raisesToCarry(Connection connection, Function<ResourceKey, Optional<ResourceKey>> carrier)
            throws SQLException {
        Map<String, Carried> raises = new HashMap<>();
        try (Statement select = connection.createStatement()) {
            select.setFetchSize(BATCH);
            try (ResultSet row = select.executeQuery("SELECT resource, token, holder FROM fence")) {
                while (row.next()) {
                    Carried carried = new Carried(row.getLong(2), row.getString(3));
                    carrier.apply(new ResourceKey(row.getString(1)))
                            .ifPresent(key -> raises.merge(key.value(), carried, Carried::with));
                }
            }
        }
        return raises;
    }
}
