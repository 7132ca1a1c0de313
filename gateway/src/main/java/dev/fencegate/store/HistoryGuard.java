package dev.fencegate.store;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices a fence database whose history went back under this instance: restored from a backup,
 * replaced by a copy, or a standby promoted without every commit. Each check commits a row of this
 * instance's and reads where the database's WAL was before that commit; once the commit is
 * acknowledged without a warning, every server that carries this history on is past that position.
 * A server behind it lost commits this instance saw acknowledged, and with them any fence raised
 * since, by any instance: from then on this instance opens no connection to it and closes those it
 * has as they come back to the pool (every write and raise fails closed), until it is restarted
 * after the fences were raised back.
 */
public final class HistoryGuard {

    private static final Logger log = LoggerFactory.getLogger(HistoryGuard.class);
    /** Where the next WAL record goes; null on a server in recovery, which has none to show. */
    private static final String POSITION = "SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_wal_lsn()::text END";
    /**
     * A commit that writes WAL (a row of this guard's own, so nothing else ever waits on it), a
     * position before it, and whether the commit waits until it is on disk.
     */
    private static final String CONFIRM = """
            WITH touched AS (
                INSERT INTO fence_confirmation (instance, confirmed_at) VALUES (?, now())
                ON CONFLICT (instance) DO UPDATE SET confirmed_at = EXCLUDED.confirmed_at
                RETURNING 1)
            SELECT pg_current_wal_insert_lsn()::text, current_setting('synchronous_commit') FROM touched""";
    private static final String STANDBYS_NAMED = "SELECT current_setting('synchronous_standby_names') <> ''";
    /** SQLSTATE object_not_in_prerequisite_state: the server answered, and is not one fences can be checked on. */
    private static final String UNUSABLE_STATE = "55000";
    /**
     * A server in recovery has no WAL position to show, so nothing to hold against the confirmed one:
     * a connection made to it could outlive its promotion unchecked (a copy restored as a standby
     * and promoted under writes), so none is made. It could not record a fence anyway.
     */
    private static final String IN_RECOVERY = "the fence database is in recovery (a standby, or a copy being restored):"
            + " it cannot record fences, and no connection is taken to it until it is promoted";

    /** The fence_confirmation row this guard commits: not the instance's own, which fence-check batches lock. */
    private final UUID row;
    private final boolean allowUnsafe;
    private final boolean standbyMustConfirm;
    /** The WAL position of the last commit confirmed, unsigned; 0 before the first. Guarded by {@code this}. */
    private long confirmed;
    /** Why the database can no longer be trusted, once it went back; null until then. Guarded by {@code this}. */
    private String wentBack;
    /** Told once, as the database is found to have gone back. */
    private volatile Runnable onWentBack = () -> { };

    /**
     * @param allowUnsafe        --allow-unsafe-durability: a history that went back is logged, and
     *                           writes go on from where the database now is
     * @param standbyMustConfirm --require-sync-standby: a commit counts only while synchronous
     *                           standbys are still named after it
     */
    public HistoryGuard(UUID instance, boolean allowUnsafe, boolean standbyMustConfirm) {
        this.row = UUID.nameUUIDFromBytes(("history " + instance).getBytes(StandardCharsets.UTF_8));
        this.allowUnsafe = allowUnsafe;
        this.standbyMustConfirm = standbyMustConfirm;
    }

    /**
     * Run on every new connection before it is used: refuses it, with the reason, if the server is
     * in recovery, or behind a commit this instance saw confirmed, or if one was already found so.
     */
    public void verify(Connection connection) throws SQLException {
        refuseIfWentBack();
        // What was confirmed before the read: a commit confirmed while the read is under way lies past the
        // position the read may return, though nothing was lost.
        long floor = confirmedPosition();
        Optional<Long> position = position(connection);
        if (position.isEmpty()) {
            throw new SQLException(IN_RECOVERY, UNUSABLE_STATE);
        }
        compare(position.get(), floor);
    }

    /** {@code action} runs once, on the thread that finds the database gone back (to close what is open to it). */
    public void onWentBack(Runnable action) {
        this.onWentBack = action;
    }

    /**
     * Commits this instance's row and, once that commit came back confirmed, takes the WAL position
     * read before it as the history the database must never fall behind. Call only while the
     * durability guard finds the settings safe: a commit on a server that can lose it confirms
     * nothing. Blocking: call off the event loops.
     */
    public void confirm(Connection connection) throws SQLException {
        verify(connection);
        long before;
        String commit;
        try (PreparedStatement statement = connection.prepareStatement(CONFIRM)) {
            statement.setObject(1, row);
            try (ResultSet answer = statement.executeQuery()) {
                answer.next();
                before = parse(answer.getString(1));
                commit = answer.getString(2);
            }
            if (commit.equals("off") || commit.equals("local")) {
                // Acknowledged before it is on disk (or on the standbys): it may be lost, and a server
                // read before it reaches the disk is not behind it, though it shows a WAL position that is.
                return;
            }
            if (statement.getWarnings() != null) {
                return; // a wait for the synchronous standbys was cancelled: visible, not confirmed
            }
        }
        if (standbyMustConfirm && !standbysNamed(connection)) {
            return;
        }
        synchronized (this) {
            if (Long.compareUnsigned(before, confirmed) > 0) {
                confirmed = before;
            }
        }
    }

    /** Throws, with the reason, once the database was found to have gone back: no connection is made to it any more. */
    public void refuseIfWentBack() throws SQLException {
        String known = refusalWords();
        if (known != null) {
            throw new SQLException(known, UNUSABLE_STATE);
        }
    }

    /** Why every write must be refused: the database went back under this instance. */
    public Optional<String> refusal() {
        return Optional.ofNullable(refusalWords());
    }

    /** The WAL position of the last commit confirmed, in bytes from the start of the WAL; 0 before the first. */
    public synchronized long confirmedPosition() {
        return confirmed;
    }

    private synchronized String refusalWords() {
        return wentBack;
    }

    /**
     * Refuses a server at {@code position}, and every one after it, if that is behind {@code floor},
     * a position confirmed before {@code position} was read.
     */
    void compare(long position, long floor) throws SQLException {
        String words;
        synchronized (this) {
            if (wentBack != null) {
                throw new SQLException(wentBack, UNUSABLE_STATE);
            }
            if (Long.compareUnsigned(position, floor) >= 0) {
                return;
            }
            words = "the fence database went back: its WAL is at " + format(position) + ", before "
                    + format(floor) + ", where a commit of this instance was confirmed (restored from a backup,"
                    + " replaced by a copy, or a standby promoted without every commit), so fences raised since may be"
                    + " lost; raise every fence written since back to the lease service's tokens, then restart this instance";
            if (allowUnsafe) {
                confirmed = position;
            } else {
                wentBack = words;
            }
        }
        if (allowUnsafe) {
            log.error("FENCE HISTORY WENT BACK: {}. Writes are served anyway (--allow-unsafe-durability).", words);
            return;
        }
        log.error("FENCE HISTORY WENT BACK: {}. Every write and raise is refused with 503 until this instance is restarted.",
                words);
        onWentBack.run();
        throw new SQLException(words, UNUSABLE_STATE);
    }

    private static Optional<Long> position(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(POSITION)) {
            row.next();
            String lsn = row.getString(1);
            return lsn == null ? Optional.empty() : Optional.of(parse(lsn));
        }
    }

    private static boolean standbysNamed(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(STANDBYS_NAMED)) {
            row.next();
            return row.getBoolean(1);
        }
    }

    /** A {@code pg_lsn} in its text form, {@code X/Y} in hexadecimal, as one unsigned 64-bit position. */
    static long parse(String lsn) {
        int slash = lsn.indexOf('/');
        if (slash < 1 || slash == lsn.length() - 1) {
            throw new IllegalArgumentException("not a WAL position: " + lsn);
        }
        long high = Long.parseUnsignedLong(lsn.substring(0, slash), 16);
        long low = Long.parseUnsignedLong(lsn.substring(slash + 1), 16);
        if (Long.compareUnsigned(high, 0xFFFF_FFFFL) > 0 || Long.compareUnsigned(low, 0xFFFF_FFFFL) > 0) {
            throw new IllegalArgumentException("not a WAL position: " + lsn);
        }
        return high << 32 | low;
    }

    static String format(long position) {
        return Long.toHexString(position >>> 32).toUpperCase(Locale.ROOT) + "/"
                + Long.toHexString(position & 0xFFFF_FFFFL).toUpperCase(Locale.ROOT);
    }
}
