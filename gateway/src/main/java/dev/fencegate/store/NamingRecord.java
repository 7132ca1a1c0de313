package dev.fencegate.store;

import dev.fencegate.fence.ResourceNaming;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The naming record beside the fences ({@code fence_naming}, one row) as one instance reads and
 * writes it: every statement {@link NamingGuard} makes. Each write is conditional on the record
 * still being what was read, or made under its row lock, so two instances changing it at once
 * never both succeed. What to make of the record is {@link NamingGuard}'s.
 */
final class NamingRecord {

    private static final Logger log = LoggerFactory.getLogger(NamingRecord.class);
    private static final String READ = "SELECT naming, carried, carried_naming, current_setting('fencegate.naming', true),"
            + " tokens_signed FROM fence_naming";
    /** Rows of other instances that expired without being withdrawn; each removal is told to its instance. */
    private static final String FORGET_EXPIRED = """
            WITH gone AS (DELETE FROM fence_inflight WHERE instance <> ? AND until <= now() RETURNING resource, instance)
            SELECT count(pg_notify(?, instance::text || chr(10) || resource)) FROM gone""";

    /**
     * The record, and the naming key the session that read it carries.
     *
     * @param tokensSigned whether the instances require signed tokens; null when not recorded yet
     *                     (a record written by a version that did not record it)
     */
    record Recorded(String naming, boolean carried, String carriedNaming, String sessionKey, Boolean tokensSigned) {
    }

    /** How a carry ended, and how many fences it raised (-1 when it raised none itself). */
    record Carry(Outcome outcome, long raised) {
        enum Outcome { CARRIED, NAMING_CHANGED, REGISTERED, NOT_CARRIABLE }
    }

    private final DataSource dataSource;
    private final ResourceNaming naming;
    private final String text;
    private final String key;
    private final boolean tokensSigned;
    private final UUID instance;

    /** The record as an instance with {@code naming} (whose sessions carry {@code key}) sees it. */
    NamingRecord(DataSource dataSource, ResourceNaming naming, String key, boolean tokensSigned, UUID instance) {
        this.dataSource = dataSource;
        this.naming = naming;
        this.text = naming.text();
        this.key = key;
        this.tokensSigned = tokensSigned;
        this.instance = instance;
    }

    /** Records this instance's signing setting, only if the record still holds {@code read}. */
    boolean recordSigning(Boolean read) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement(
                     "UPDATE fence_naming SET tokens_signed = ?, changed_at = now() WHERE tokens_signed IS NOT DISTINCT FROM ?")) {
            update.setBoolean(1, tokensSigned);
            if (read == null) {
                update.setNull(2, Types.BOOLEAN);
            } else {
                update.setBoolean(2, read);
            }
            return update.executeUpdate() == 1;
        }
    }

    /** The record as this instance's session reads it; recorded first if there is none yet. */
    Recorded readOrRecord() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            Optional<Recorded> recorded = read(connection, false);
            return recorded.isPresent() ? recorded.get() : recordFirst(connection);
        }
    }

    /**
     * No naming recorded yet (a new database, or one whose fences an earlier version wrote): this
     * instance's is recorded, and the fences already there are carried to its keys in the same
     * transaction, so that scopes set during an upgrade still start from their objects' fences.
     */
    private Recorded recordFirst(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        try {
            FenceCarry.lock(connection);
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO fence_naming (naming, naming_key, carried,"
                    + " carried_naming, tokens_signed) VALUES (?, ?, true, ?, ?) ON CONFLICT (only_row) DO NOTHING")) {
                insert.setString(1, text);
                insert.setString(2, key);
                insert.setString(3, text);
                insert.setBoolean(4, tokensSigned);
                if (insert.executeUpdate() == 1) {
                    long raised = FenceCarry.raise(connection, naming);
                    log.info("Fence naming recorded: {} ({} fence(s) raised to carry the ones already recorded)", text, raised);
                }
            }
            Recorded recorded = read(connection, false)
                    .orElseThrow(() -> new SQLException("fence_naming has no row after recording one"));
            connection.commit();
            return recorded;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private static Optional<Recorded> read(Connection connection, boolean forUpdate) throws SQLException {
        try (Statement select = connection.createStatement();
             ResultSet row = select.executeQuery(forUpdate ? READ + " FOR UPDATE" : READ)) {
            if (!row.next()) {
                return Optional.empty();
            }
            Boolean signed = row.getObject(5, Boolean.class);
            return Optional.of(new Recorded(row.getString(1), row.getBoolean(2), row.getString(3), row.getString(4), signed));
        }
    }

    /** Records this naming over {@code read}, only if the record is still what was read (a carry since would change it). */
    boolean recordChange(Recorded read) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement("UPDATE fence_naming SET naming = ?, naming_key = ?,"
                     + " carried = false, changed_at = now() WHERE naming = ? AND carried = ? AND carried_naming = ?")) {
            update.setString(1, text);
            update.setString(2, key);
            update.setString(3, read.naming());
            update.setBoolean(4, read.carried());
            update.setString(5, read.carriedNaming());
            return update.executeUpdate() == 1;
        }
    }

    /** Takes back a change never carried, to the naming it was carried under before (this instance's). */
    boolean takeBack(String uncarried) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement("UPDATE fence_naming SET naming = carried_naming,"
                     + " naming_key = ?, carried = true, changed_at = now() WHERE naming = ? AND NOT carried AND carried_naming = ?")) {
            update.setString(1, key);
            update.setString(2, uncarried);
            update.setString(3, text);
            return update.executeUpdate() == 1;
        }
    }

    long otherRegistrations() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return otherRows(connection, " AND until > now()");
        }
    }

    /** Registration rows of other instances, of any age unless {@code condition} narrows them. */
    private long otherRows(Connection connection, String condition) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT count(*) FROM fence_inflight WHERE instance <> ?" + condition)) {
            select.setObject(1, instance);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    long forgetExpiredRegistrations() throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement(FORGET_EXPIRED)) {
            delete.setObject(1, instance);
            delete.setString(2, InflightListener.ROW_REMOVED_CHANNEL);
            try (ResultSet row = delete.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    Carry carry() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                Optional<Recorded> recorded = read(connection, true);
                if (recorded.isEmpty() || !recorded.get().naming().equals(text)) {
                    connection.rollback();
                    return new Carry(Carry.Outcome.NAMING_CHANGED, -1);
                }
                if (recorded.get().carried()) {
                    connection.commit();
                    return new Carry(Carry.Outcome.CARRIED, -1);
                }
                // Whoever recorded the change, the fences are carried from the naming last carried.
                if (naming.whyNotCarriedFrom(recorded.get().carriedNaming()).isPresent()) {
                    connection.rollback();
                    return new Carry(Carry.Outcome.NOT_CARRIABLE, -1);
                }
                FenceCarry.lock(connection);
                // None can be made under the old naming now, but one that was there may have been renewed.
                if (otherRows(connection, "") > 0) {
                    connection.rollback();
                    return new Carry(Carry.Outcome.REGISTERED, -1);
                }
                long raised = FenceCarry.raise(connection, naming);
                try (Statement done = connection.createStatement()) {
                    done.executeUpdate("UPDATE fence_naming SET carried = true, carried_naming = naming, changed_at = now()");
                }
                connection.commit();
                return new Carry(Carry.Outcome.CARRIED, raised);
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }
}
