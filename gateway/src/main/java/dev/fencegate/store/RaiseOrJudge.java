package dev.fencegate.store;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.RegistrationRows;
import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The first statement of a batch of fence checks, and its only commit: it writes the batch's
 * registrations, raises the fence of each resource a claim is above, and judges every other
 * claim, all against one snapshot.
 */
final class RaiseOrJudge {

    /**
     * In order: this instance's registrations ({@code fence_inflight} rows, lowest token kept,
     * a new generation), in the order given, which is resource order, so no two writers of them
     * wait on each other in a cycle. Then, once those are written (the scalar subquery makes the
     * raise wait for them, so every batch takes its row locks in the same order), the fence of
     * each resource the snapshot shows below a claim is raised, only the highest claim per
     * resource, the first of equals, in resource order. The raise is not announced here: an
     * instance that may hold the old fence or still send below the new one is registered, the
     * read after this commit finds it, and the claim then waits and announces (see
     * {@link PostgresFenceStore}); a registration removed by hand is announced by a trigger as it
     * goes. A claim the snapshot shows at or below its fence writes nothing, so takes no row lock.
     * Each fence is looked up per claim, so a cached generic plan cannot become a scan of the
     * whole table. Rows: per claim, the fence before, whether another instance may still have a
     * lower-token write in flight (live, expired; not looked for when the claim raises an existing
     * row, which only the read after the commit judges), whether its resource was raised here, and
     * whether that raise created the row; then per registration written, the row.
     */
    private static final String UPSERTING = statement(PostgresInflightRegistrations.WRITE, """
            raised AS (
                INSERT INTO fence AS f (resource, token, holder)
                SELECT DISTINCT ON (resource) resource, token, holder FROM c
                WHERE (fence IS NULL OR fence < token) AND (SELECT count(*) FROM registered) >= 0
                ORDER BY resource, token DESC, ord
                ON CONFLICT (resource) DO UPDATE
                    SET token = EXCLUDED.token, holder = EXCLUDED.holder, updated_at = now()
                    WHERE f.token < EXCLUDED.token
                RETURNING f.resource, f.xmax = 0 AS created)""");
    /**
     * Binds as {@link PostgresInflightRegistrations#WRITE}: rows this instance knows of none of,
     * inserted. Without {@code ON CONFLICT}, an insert is one index descent and one WAL record
     * less a row (no check for a conflict first, no confirmation of a speculative insertion), and
     * a row that is there after all fails the statement instead.
     */
    private static final String INSERT_REGISTRATIONS = """
            INSERT INTO fence_inflight (resource, instance, min_token, until, generation)
            SELECT r.resource, ?, r.min_token, now() + make_interval(secs => ?), nextval('fence_inflight_generation')
            FROM unnest(?::text[], ?::bigint[]) AS r(resource, min_token)
            RETURNING resource, min_token, generation""";
    /**
     * As {@link #UPSERTING}, with the fence rows the snapshot shows missing inserted (created, by
     * definition, if the statement succeeds) rather than upserted, before the raises of existing
     * rows, each part in resource order. A row inserted since the snapshot makes the statement
     * fail with a unique violation, where the upsert would have raised it or left it; nothing of
     * the statement stays, and {@link #run} judges the batch again with {@link #UPSERTING}. No two
     * batches wait on each other in a cycle: an insert waits only for another transaction's
     * uncommitted insert of the same key, which both make in resource order, and a row the raise
     * part locks was committed before the snapshot, so an insert of it fails at once.
     */
    private static final String INSERTING = """
            top AS (
                SELECT DISTINCT ON (resource) resource, token, holder, fence FROM c
                WHERE (fence IS NULL OR fence < token) AND (SELECT count(*) FROM registered) >= 0
                ORDER BY resource, token DESC, ord),
            made AS (
                INSERT INTO fence (resource, token, holder) SELECT resource, token, holder FROM top WHERE fence IS NULL
                RETURNING resource, true AS created),
            moved AS (
                INSERT INTO fence AS f (resource, token, holder) SELECT resource, token, holder FROM top WHERE fence IS NOT NULL
                ON CONFLICT (resource) DO UPDATE
                    SET token = EXCLUDED.token, holder = EXCLUDED.holder, updated_at = now()
                    WHERE f.token < EXCLUDED.token
                RETURNING f.resource, false AS created),
            raised AS (SELECT resource, created FROM made UNION ALL SELECT resource, created FROM moved)""";
    private static final String INSERTING_FENCES = statement(PostgresInflightRegistrations.WRITE, INSERTING);
    private static final String INSERTING_ROWS = statement(INSERT_REGISTRATIONS, INSERTING);
    /** A row the statement meant to insert was there: {@code unique_violation}. */
    private static final String ROW_THERE = "23505";

    private static String statement(String registration, String raise) {
        return """
                WITH registered AS (
                """ + registration + """
                ),
                c AS (
                    SELECT c.ord, c.resource, c.token, c.holder, f.token AS fence, f.holder AS fence_holder,
                        CASE WHEN f.token IS NULL OR f.token >= c.token THEN (""" + ReadAndJudge.OTHERS_BELOW + """
                            WHERE i.resource = c.resource AND i.instance <> ? AND i.min_token < c.token) END AS others
                    FROM unnest(?::text[], ?::bigint[], ?::text[]) WITH ORDINALITY AS c(resource, token, holder, ord)
                    LEFT JOIN LATERAL (SELECT token, holder FROM fence WHERE resource = c.resource LIMIT 1) f ON true),
                """ + raise + """

                SELECT c.ord, c.fence, c.fence_holder, c.others = 1, c.others = 2, r.resource IS NOT NULL,
                    NULL::text, NULL::bigint, NULL::bigint, coalesce(r.created, false)
                FROM c LEFT JOIN raised r ON r.resource = c.resource
                UNION ALL
                SELECT NULL, NULL, NULL, NULL, NULL, NULL, g.resource, g.min_token, g.generation, NULL FROM registered g""";
    }

    /**
     * What the statement found. {@code decisions} is final for a claim it judged and a
     * placeholder for the others, whose positions are {@code again}: they are judged again after
     * the commit. A claim whose raise created its resource's fence row, with no other instance's
     * row for the resource in sight, is final here, once the commit came back without a warning:
     * any other instance with a write there in flight registered and then read the fence, so it
     * either raised first (and this raise did not create the row) or reads this one after its own
     * registration committed and finds its claim stale or level with this one. {@code wrote} maps
     * the claim that wrote its resource's fence to the fence it replaced. {@code warning} came back
     * with the commit. {@code upsertedAgain}: a row meant to be inserted was there, so the batch
     * was judged a second time, upserting.
     */
    record Look(List<FenceDecision> decisions, List<Integer> again, Map<Integer, Optional<FencingToken>> wrote,
                List<RegistrationRows.Written> registered, boolean raisedAny, SQLWarning warning, boolean upsertedAgain) {

        /** Whether the statement wrote a row, so made a commit that waited for the WAL. */
        boolean committed() {
            return raisedAny || !registered.isEmpty();
        }
    }

    private RaiseOrJudge() {
    }

    /**
     * Inserts the fence rows the snapshot shows missing, and the registrations too when this
     * instance knows of no row of its own for any of them ({@code rowsUnknown}); if a row was there
     * after all, the statement changed nothing, and the batch is judged again with upserts.
     */
    static Look run(Connection connection, UUID instance, List<FenceClaim> claims, Map<ResourceKey, Long> register,
                    boolean rowsUnknown, Duration length) throws SQLException {
        String inserting = rowsUnknown && !register.isEmpty() ? INSERTING_ROWS : INSERTING_FENCES;
        try {
            return run(connection, inserting, instance, claims, register, length, false);
        } catch (SQLException e) {
            if (!ROW_THERE.equals(e.getSQLState())) {
                throw e;
            }
            return run(connection, UPSERTING, instance, claims, register, length, true);
        }
    }

    /**
     * A commit waiting for a synchronous standby outlives the session's statement timeout, which
     * stops before the commit, and the driver's socket timeout would end only this side's wait: the
     * session would go on waiting, holding the fence rows, and its raise would land whenever the
     * standby came back, announced to nobody. So the driver cancels the statement a while before
     * its socket times out: a cancel ends the wait, and the commit comes back with a warning, which
     * the batch answers as a raise that may stand, and announces.
     */
    private static void cancelAWaitingCommit(Connection connection, PreparedStatement statement) throws SQLException {
        int socketMillis = connection.getNetworkTimeout();
        if (socketMillis > 0) {
            statement.setQueryTimeout(Math.max(1, (socketMillis - 3_000) / 1_000));
        }
    }

    private static Look run(Connection connection, String sql, UUID instance, List<FenceClaim> claims,
                            Map<ResourceKey, Long> register, Duration length, boolean upsertedAgain) throws SQLException {
        Map<ResourceKey, Integer> highest = new HashMap<>();
        for (int i = 0; i < claims.size(); i++) {
            highest.merge(claims.get(i).resource(), i,
                    (kept, next) -> claims.get(kept).token().isBelow(claims.get(next).token()) ? next : kept);
        }
        FenceDecision[] decisions = new FenceDecision[claims.size()];
        List<Integer> again = new ArrayList<>();
        Map<Integer, Optional<FencingToken>> wrote = new HashMap<>();
        List<RegistrationRows.Written> registered = new ArrayList<>(register.size());
        List<Integer> created = new ArrayList<>();
        boolean raisedAny = false;
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            cancelAWaitingCommit(connection, statement);
            statement.setObject(1, instance);
            statement.setDouble(2, length.toNanos() / 1e9);
            statement.setArray(3, SqlArrays.texts(connection, register.keySet(), ResourceKey::value));
            statement.setArray(4, SqlArrays.bigints(connection, register.values(), Long::longValue));
            statement.setObject(5, instance);
            statement.setArray(6, SqlArrays.texts(connection, claims, c -> c.resource().value()));
            statement.setArray(7, SqlArrays.bigints(connection, claims, c -> c.token().value()));
            statement.setArray(8, SqlArrays.texts(connection, claims, c -> c.holder().map(Holder::value).orElse(null)));
            try (ResultSet row = statement.executeQuery()) {
                while (row.next()) {
                    int ord = row.getInt(1);
                    if (row.wasNull()) {
                        registered.add(new RegistrationRows.Written(new ResourceKey(row.getString(7)), row.getLong(8), row.getLong(9)));
                        continue;
                    }
                    int i = ord - 1;
                    FenceClaim claim = claims.get(i);
                    long fence = row.getLong(2);
                    Optional<FencingToken> before = row.wasNull() ? Optional.empty() : Optional.of(new FencingToken(fence));
                    boolean above = before.isEmpty() || before.get().isBelow(claim.token());
                    boolean raised = row.getBoolean(6);
                    raisedAny |= raised;
                    if (above && raised && highest.get(claim.resource()) == i) {
                        wrote.put(i, before);
                        if (row.getBoolean(10) && !row.getBoolean(4) && !row.getBoolean(5)) {
                            created.add(i);
                        }
                    }
                    if (above || register.containsKey(claim.resource())) {
                        again.add(i);
                    } else {
                        decisions[i] = ReadAndJudge.judged(claim, fence, row.getString(3), row.getBoolean(4), row.getBoolean(5));
                    }
                }
            }
            SQLWarning warning = statement.getWarnings();
            if (warning == null) {
                for (int i : created) {
                    again.remove(Integer.valueOf(i));
                    decisions[i] = new FenceDecision.Admitted(claims.get(i), Optional.empty());
                }
            }
            again.sort(null);
            return new Look(everyClaimJudged(decisions, again), again, wrote, registered, raisedAny, warning, upsertedAgain);
        }
    }

    /**
     * The decisions, one per claim, or an error if the database gave no row for one that is not
     * to be judged again ({@code again}): a decision is never passed on for a claim it was not made for.
     */
    static List<FenceDecision> everyClaimJudged(FenceDecision[] decisions, List<Integer> again) throws SQLException {
        for (int i = 0; i < decisions.length; i++) {
            if (decisions[i] == null && !again.contains(i)) {
                throw new SQLException("the fence statement returned no row for claim " + (i + 1) + " of " + decisions.length);
            }
        }
        return new ArrayList<>(Arrays.asList(decisions));
    }
}
