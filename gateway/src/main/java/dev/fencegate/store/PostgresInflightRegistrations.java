package dev.fencegate.store;

import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.RegistrationRows;
import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
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
 * renewed, nor one written anew since the row it was planned for was removed: every write of a row
 * takes the next value of one sequence, so no two writes of a row ever share a generation.
 */
public final class PostgresInflightRegistrations implements RegistrationRows {

    /**
     * This instance's rows for the given resources, lowest token kept, a new generation; binds the
     * instance, the row length in seconds, the resources and their minimum tokens. Also the first
     * step of {@link RaiseOrJudge}, where it shares the batch's commit.
     */
    static final String WRITE = """
            INSERT INTO fence_inflight AS i (resource, instance, min_token, until, generation)
            SELECT r.resource, ?, r.min_token, now() + make_interval(secs => ?), nextval('fence_inflight_generation')
            FROM unnest(?::text[], ?::bigint[]) AS r(resource, min_token)
            ON CONFLICT (resource, instance) DO UPDATE
                SET min_token = least(i.min_token, EXCLUDED.min_token),
                    until = greatest(i.until, EXCLUDED.until),
                    generation = nextval('fence_inflight_generation')
            RETURNING resource, min_token, generation""";
    /**
     * Binds the resources and the generations they must still have, then the instance twice. A row
     * another transaction has locked (most often a batch writing it again) is skipped: the sweep never
     * waits on a row, so it cannot wait in a cycle with a batch whose statement locks rows of both
     * tables in an order of its own.
     */
    private static final String WITHDRAW = """
            WITH free AS (SELECT f.resource, f.generation FROM fence_inflight f
                          JOIN unnest(?::text[], ?::bigint[]) AS w(resource, generation)
                            ON f.resource = w.resource AND f.generation = w.generation
                          WHERE f.instance = ?
                          FOR UPDATE OF f SKIP LOCKED)
            DELETE FROM fence_inflight i USING free
            WHERE i.instance = ? AND i.resource = free.resource AND i.generation = free.generation""";
    /** Binds the resources, their new minimum tokens and the generations they must still have, then the instance twice; skips locked rows as {@link #WITHDRAW} does. */
    private static final String NARROW = """
            WITH n AS (SELECT * FROM unnest(?::text[], ?::bigint[], ?::bigint[]) AS n(resource, min_token, generation)),
                 free AS (SELECT n.resource, n.min_token, n.generation FROM fence_inflight f
                          JOIN n ON f.resource = n.resource AND f.generation = n.generation
                          WHERE f.instance = ?
                          FOR UPDATE OF f SKIP LOCKED)
            UPDATE fence_inflight i SET min_token = free.min_token FROM free
            WHERE i.resource = free.resource AND i.instance = ? AND i.generation = free.generation""";

    private final DataSource dataSource;
    private final UUID instance;

    public PostgresInflightRegistrations(DataSource dataSource, UUID instance) {
        this.dataSource = dataSource;
        this.instance = instance;
    }

    /** In resource order (the caller's map is sorted), so two writes never wait on each other's rows in a cycle. */
    @Override
    public List<Written> write(Map<ResourceKey, Long> minTokens, Duration length) {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw unavailable(minTokens, e, false);
        }
        try (connection; PreparedStatement upsert = connection.prepareStatement(WRITE)) {
            upsert.setObject(1, instance);
            upsert.setDouble(2, length.toNanos() / 1e9);
            upsert.setArray(3, SqlArrays.texts(connection, minTokens.keySet(), ResourceKey::value));
            upsert.setArray(4, SqlArrays.bigints(connection, minTokens.values(), Long::longValue));
            List<Written> written = new ArrayList<>(minTokens.size());
            try (ResultSet row = upsert.executeQuery()) {
                while (row.next()) {
                    written.add(new Written(new ResourceKey(row.getString(1)), row.getLong(2), row.getLong(3)));
                }
            }
            SQLWarning warning = upsert.getWarnings();
            if (warning != null) {
                // A cancelled wait for the synchronous standbys: on the primary only, so not written as far as
                // a failover goes; committed all the same, so the rows are in doubt like a lost answer's.
                throw unavailable(minTokens, new SQLException("the commit is not confirmed durable: " + warning.getMessage(),
                        warning.getSQLState(), warning), true);
            }
            return written;
        } catch (SQLException e) {
            throw unavailable(minTokens, e, DatabaseProblem.mayHaveCommitted(e));
        }
    }

    /** {@code sent}: the statement reached the database and its answer was lost, so the rows may have committed. */
    private static FenceStoreUnavailableException unavailable(Map<ResourceKey, Long> minTokens, SQLException e, boolean sent) {
        return new FenceStoreUnavailableException("in-flight registration for " + minTokens.size() + " resource(s), first "
                + minTokens.keySet().iterator().next() + ", failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e, sent);
    }

    /**
     * One statement per kind and one commit for the whole sweep, which does not wait for the WAL
     * flush: a withdrawal or narrowing lost in a crash leaves a row covering more than needed,
     * which only delays other instances until it expires, and the next commit that waits flushes it.
     */
    @Override
    public void tidy(List<Change> withdrawals, List<Change> narrowings) {
        if (withdrawals.isEmpty() && narrowings.isEmpty()) {
            return;
        }
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                try (Statement settings = connection.createStatement()) {
                    settings.execute("SET LOCAL synchronous_commit = off");
                }
                if (!withdrawals.isEmpty()) {
                    try (PreparedStatement delete = connection.prepareStatement(WITHDRAW)) {
                        delete.setArray(1, SqlArrays.texts(connection, withdrawals, row -> row.resource().value()));
                        delete.setArray(2, SqlArrays.bigints(connection, withdrawals, Change::generation));
                        delete.setObject(3, instance);
                        delete.setObject(4, instance);
                        delete.executeUpdate();
                    }
                }
                if (!narrowings.isEmpty()) {
                    try (PreparedStatement narrow = connection.prepareStatement(NARROW)) {
                        narrow.setArray(1, SqlArrays.texts(connection, narrowings, row -> row.resource().value()));
                        narrow.setArray(2, SqlArrays.bigints(connection, narrowings, Change::minToken));
                        narrow.setArray(3, SqlArrays.bigints(connection, narrowings, Change::generation));
                        narrow.setObject(4, instance);
                        narrow.setObject(5, instance);
                        narrow.executeUpdate();
                    }
                }
                connection.commit();
            } catch (SQLException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            // None made, or not known to be: a row left behind delays other instances' raises until it expires.
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
}
