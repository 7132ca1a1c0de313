package dev.fencegate.store;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * What a batch of fence checks adds under synchronous replication before a claim is admitted: a
 * commit the standbys confirmed after every read the claim was judged on, and, under
 * {@code --require-sync-standby}, standbys still named once the batch committed.
 */
final class StandbyConfirmation {

    /**
     * A commit that writes WAL, so that it waits for the synchronous standbys (a transaction that
     * writes none does not): this instance's own row, so that instances never wait on each other.
     */
    private static final String CONFIRM = """
            INSERT INTO fence_confirmation (instance, confirmed_at) VALUES (?, now())
            ON CONFLICT (instance) DO UPDATE SET confirmed_at = EXCLUDED.confirmed_at""";
    /** Read on the committing session: a reload that emptied it was taken before the next statement. */
    private static final String STANDBYS_NAMED = "SELECT current_setting('synchronous_standby_names') <> ''";

    private final UUID instance;
    /** Whether synchronous standbys are named: the durability guard's last reading. */
    private final BooleanSupplier standbysNamed;
    /** --require-sync-standby: a commit counts only if a synchronous standby confirmed it. */
    private final boolean standbyMustConfirm;

    StandbyConfirmation(UUID instance, BooleanSupplier standbysNamed, boolean standbyMustConfirm) {
        this.instance = instance;
        this.standbysNamed = standbysNamed;
        this.standbyMustConfirm = standbyMustConfirm;
    }

    /**
     * With synchronous standbys, a commit whose wait for them was cancelled is visible on the
     * primary before any standby has it: a fence or registration read from such a commit could be
     * lost in a failover. A claim admitted on a read (at its fence, or judged after a raise) is
     * therefore admitted only once a commit made after that read comes back without a warning: the
     * standbys confirm the WAL in order, so that commit confirms everything the read saw. Without
     * standbys named, a commit is on the primary's disk before it is visible, and nothing is added.
     * Returns whether it made a commit.
     */
    boolean confirmReadsDurable(Connection connection, List<FenceClaim> claims, RaiseOrJudge.Look first,
                                List<FenceDecision> decisions, boolean readAfterCommit) throws SQLException {
        // A holder named, or a claim judged again, after the first commit is confirmed as a read is: by a commit after it.
        boolean confirmedAfterEveryRead = first.committed() && first.warning() == null && first.again().isEmpty() && !readAfterCommit;
        if (confirmedAfterEveryRead || decisions.stream().noneMatch(FenceDecision.Admitted.class::isInstance)
                || !standbysNamed.getAsBoolean()) {
            return false;
        }
        String unconfirmed;
        try (PreparedStatement statement = connection.prepareStatement(CONFIRM)) {
            statement.setObject(1, instance);
            statement.execute();
            SQLWarning warning = statement.getWarnings();
            if (warning == null) {
                return true;
            }
            unconfirmed = warning.getMessage();
        } catch (SQLException e) {
            unconfirmed = e.getMessage() + " (SQLState " + e.getSQLState() + ")";
        }
        for (int i = 0; i < decisions.size(); i++) {
            if (decisions.get(i) instanceof FenceDecision.Admitted) {
                decisions.set(i, new FenceDecision.Unavailable("fence for " + claims.get(i).resource() + " read at "
                        + claims.get(i).token() + ", but no commit after the read was confirmed by the synchronous standbys: "
                        + unconfirmed));
            }
        }
        return false;
    }

    /**
     * PostgreSQL releases the commits waiting for a synchronous standby, as successful and without
     * a warning, when {@code synchronous_standby_names} is emptied (Patroni does so about a second
     * after the last synchronous standby went away): such a commit is on the primary only. Under
     * {@code --require-sync-standby} the committing session reads the setting after its commits;
     * the reload that emptied it was signalled to this session before the commit was released, so
     * this read sees it. Empty, nothing of the batch is admitted.
     */
    void confirmStandbysStillNamed(Connection connection, List<FenceClaim> claims, List<FenceDecision> decisions)
            throws SQLException {
        if (!standbyMustConfirm || decisions.stream().noneMatch(FenceDecision.Admitted.class::isInstance)) {
            return;
        }
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(STANDBYS_NAMED)) {
            row.next();
            if (row.getBoolean(1)) {
                return;
            }
        }
        for (int i = 0; i < decisions.size(); i++) {
            if (decisions.get(i) instanceof FenceDecision.Admitted) {
                decisions.set(i, new FenceDecision.Unavailable("fence for " + claims.get(i).resource() + " at "
                        + claims.get(i).token() + " may be on the primary only: synchronous_standby_names was emptied"
                        + " (no synchronous standby left) while the batch committed, and --require-sync-standby is set"));
            }
        }
    }
}
