package dev.fencegate.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what an acknowledged fence means in this deployment, says it in plain words, and refuses
 * writes on settings that can lose acknowledged fences unless the operator accepted that.
 *
 * <p>The check each second reads one session. Every new session of the fence pool is read too
 * ({@link #verifySession}) before it runs a statement: a setting of the gateway's role or database
 * reaches only sessions that start after it, and a server restarted with {@code fsync} off is
 * reached through new sessions only.
 */
public final class DurabilityGuard {

    private static final Logger log = LoggerFactory.getLogger(DurabilityGuard.class);
    private static final String SESSION = "SELECT current_setting('fsync'), current_setting('synchronous_commit')";
    private static final Verdict FSYNC_OFF = new Verdict(false, "fsync is off: a crash of the database server can lose"
            + " acknowledged fences (set fsync = on, or accept the loss with --allow-unsafe-durability)");
    private static final String READ = """
            SELECT current_setting('fsync'), current_setting('synchronous_commit'),
                   current_setting('synchronous_standby_names'), pg_is_in_recovery(),
                   current_setting('transaction_read_only'),
                   (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')),
                   (SELECT count(*) FROM pg_stat_replication WHERE sync_state IS DISTINCT FROM 'sync'
                                                             AND sync_state IS DISTINCT FROM 'quorum'),
                   (SELECT count(*) FROM pg_stat_replication WHERE sync_state IS NULL)""";

    /**
     * The settings that decide whether an acknowledged commit can be lost. {@code hiddenStandbys}:
     * standbys whose state the session may not read (PostgreSQL shows a role without
     * {@code pg_read_all_stats} the rows of {@code pg_stat_replication} with their columns empty).
     */
    public record Reading(String fsync, String synchronousCommit, String synchronousStandbyNames, boolean inRecovery,
                          boolean readOnly, long syncStandbys, long otherStandbys, long hiddenStandbys) {

        public Reading(String fsync, String synchronousCommit, String synchronousStandbyNames, boolean inRecovery,
                       boolean readOnly, long syncStandbys, long otherStandbys) {
            this(fsync, synchronousCommit, synchronousStandbyNames, inRecovery, readOnly, syncStandbys, otherStandbys, 0);
        }
    }

    /** Whether writes may be served, and why, in words an operator can act on. */
    public record Verdict(boolean safe, String words) {
    }

    /** SQLSTATE object_not_in_prerequisite_state: the server answered, and is not one fences can be kept on. */
    private static final String UNUSABLE_STATE = "55000";

    private final boolean allowUnsafe;
    private final boolean requireSyncStandby;
    private volatile Verdict verdict = new Verdict(false, "durability of the fence store not checked yet");
    private volatile boolean checked;
    private volatile Reading reading;
    /** Whether a session was found starting with commits that do not wait (logged once). */
    private volatile boolean sessionsRaised;

    public DurabilityGuard(boolean allowUnsafe, boolean requireSyncStandby) {
        this.allowUnsafe = allowUnsafe;
        this.requireSyncStandby = requireSyncStandby;
    }

    public static Verdict judge(Reading r, boolean requireSyncStandby) {
        if (r.inRecovery()) {
            return new Verdict(false, "the fence database is a standby in recovery: it cannot record fences");
        }
        if (r.readOnly()) {
            return new Verdict(false, "the fence database session is read-only: it cannot record fences");
        }
        if (r.fsync().equals("off")) {
            return FSYNC_OFF;
        }
        if (r.synchronousCommit().equals("off")) {
            // Only a session the gateway left as it started, under --allow-unsafe-durability, reads so.
            return new Verdict(false, "synchronous_commit is off: fences are acknowledged before they are on disk, "
                    + "so a crash can lose them (without --allow-unsafe-durability the gateway sets it on for its own sessions)");
        }
        if (r.hiddenStandbys() > 0) {
            return new Verdict(false, r.hiddenStandbys() + " standby(s) whose state the gateway's database role may not read:"
                    + " whether commits wait for them cannot be told; grant the role pg_monitor (or pg_read_all_stats)");
        }
        if (r.synchronousStandbyNames().isBlank()) {
            if (r.otherStandbys() > 0) {
                return new Verdict(false, r.otherStandbys() + " asynchronous standby(s) and no synchronous one: "
                        + "a failover to a standby can lose acknowledged fences");
            }
            // A single server and a replicated cluster right after a failover, before its standbys
            // reattach (Patroni then empties synchronous_standby_names), read the same: only the
            // operator knows which this is, and says so with --require-sync-standby.
            if (requireSyncStandby) {
                return new Verdict(false, "no synchronous standby is configured (synchronous_standby_names is empty), "
                        + "and --require-sync-standby is set: a replicated cluster whose standbys are away, as after a "
                        + "failover, cannot confirm fences until one reattaches");
            }
            return new Verdict(true, "an acknowledged fence is on the database server's disk (no standbys): "
                    + "it survives a crash, not the loss of the server (for a replicated cluster, set "
                    + "--require-sync-standby, so that a primary whose standbys are away does not count as safe)");
        }
        if (r.synchronousCommit().equals("local")) {
            return new Verdict(false, "synchronous_commit is local: commits do not wait for the synchronous standby, "
                    + "so a failover can lose acknowledged fences");
        }
        if (r.syncStandbys() == 0) {
            return new Verdict(false, "a synchronous standby is configured (" + r.synchronousStandbyNames()
                    + ") but none is connected: commits cannot be confirmed");
        }
        return new Verdict(true, "an acknowledged fence is on the primary's disk and confirmed by " + r.syncStandbys()
                + " synchronous standby(s) (synchronous_commit = " + r.synchronousCommit() + ")");
    }

    /** Reads the settings now, on {@code connection}; logs when the verdict changes. Blocking: call off the event loops. */
    public void check(Connection connection) throws SQLException {
        Reading reading;
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(READ)) {
            row.next();
            reading = new Reading(row.getString(1), row.getString(2), row.getString(3), row.getBoolean(4),
                    row.getString(5).equals("on"), row.getLong(6), row.getLong(7), row.getLong(8));
        }
        this.reading = reading;
        adopt(judge(reading, requireSyncStandby));
        checked = true;
    }

    /**
     * Run on every new session of the fence pool before it is used. A session whose commits would
     * not wait for the disk ({@code synchronous_commit} off, or {@code local} where standbys must
     * confirm) is set to {@code on}: a role's or database's setting does not get to decide what an
     * acknowledged fence is; any other value is set again by the session, so that a later reload of
     * the server's settings does not reach it. A server with {@code fsync} off cannot be mended from
     * a session: the session is refused, and so is every write until a check reads the server safe
     * again. Under {@code --allow-unsafe-durability} sessions are left as they start. Blocking: call
     * off the event loops.
     */
    public void verifySession(Connection connection) throws SQLException {
        if (allowUnsafe) {
            return;
        }
        String fsync;
        String commit;
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(SESSION)) {
            row.next();
            fsync = row.getString(1);
            commit = row.getString(2);
        }
        if (fsync.equals("off")) {
            adopt(FSYNC_OFF);
            throw new SQLException("writes refused: " + FSYNC_OFF.words(), UNUSABLE_STATE);
        }
        boolean raise = commit.equals("off") || commit.equals("local");
        // Set on the session even when it already waits: a value the session took from the server's
        // files would follow them on a reload (ALTER SYSTEM ... off, pg_reload_conf()), one set by the
        // session keeps.
        try (PreparedStatement pin = connection.prepareStatement("SELECT set_config('synchronous_commit', ?, false)")) {
            pin.setString(1, raise ? "on" : commit);
            pin.executeQuery().close();
        }
        if (raise) {
            if (!sessionsRaised) {
                sessionsRaised = true;
                log.warn("The gateway's database sessions start with synchronous_commit = {} (a setting of the server, its"
                        + " role or its database): each is set to on, so that an acknowledged fence is on disk"
                        + " (--allow-unsafe-durability leaves them as they start)", commit);
            }
        }
    }

    private synchronized void adopt(Verdict fresh) {
        if (!fresh.equals(verdict)) {
            if (fresh.safe()) {
                log.info("Fence durability: {}", fresh.words());
            } else if (allowUnsafe) {
                log.warn("Fence durability: {}. Writes are served anyway (--allow-unsafe-durability).", fresh.words());
            } else {
                log.error("Fence durability: {}. Writes are refused with 503 (--allow-unsafe-durability overrides).",
                        fresh.words());
            }
        }
        verdict = fresh;
    }

    /**
     * The database could not be asked: until it has been once, writes are refused naming why,
     * rather than with a bare "not checked yet". A verdict once read stands through later outages:
     * a server that comes back is reached through new sessions, each read by {@link #verifySession}.
     */
    public void uncheckable(String problem) {
        if (!checked) {
            verdict = new Verdict(false, "the fence database cannot be used: " + problem);
        }
    }

    /**
     * Whether synchronous standbys were named at the last reading (so a commit can come back
     * visible but unconfirmed); true until the first reading, when writes are refused anyway.
     */
    public boolean standbysNamed() {
        Reading last = reading;
        return last == null || !last.synchronousStandbyNames().isBlank();
    }

    /** Whether the last reading found settings under which an acknowledged commit is kept (overrides aside). */
    public boolean safe() {
        return verdict.safe();
    }

    /** Why writes must be refused now, or empty when they may be served. */
    public Optional<String> refusal() {
        Verdict current = verdict;
        return current.safe() || allowUnsafe ? Optional.empty()
                : Optional.of("writes refused: " + current.words());
    }
}
