package dev.fencegate.store;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencePolicy;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A read that judges claims without writing: each claim's fence, and whether another instance may
 * still have a lower-token write to its resource in flight. Used after a batch's commit and to
 * name first holders; {@link RaiseOrJudge} judges the same way in its statement.
 */
final class ReadAndJudge {

    /**
     * Other instances' registrations below a claim, in one look at the index, completed by a
     * {@code WHERE} that names them: 1 if one of them is live, 2 if all of them expired (without
     * being withdrawn), null if there are none.
     */
    static final String OTHERS_BELOW = "SELECT min(CASE WHEN i.until > now() THEN 1 ELSE 2 END) FROM fence_inflight i\n";
    /**
     * For each claim, in order: the fence, and whether another instance may still have a
     * lower-token write to the resource in flight (live, or expired without being withdrawn).
     */
    private static final String JUDGE_ONE = """
            SELECT token, holder, others = 1, others = 2 FROM (
                SELECT f.token, f.holder, (""" + OTHERS_BELOW + """
                    WHERE i.resource = f.resource AND i.instance <> ? AND i.min_token < ?) AS others
                FROM fence f WHERE f.resource = ?) j""";
    /**
     * The batch form. The fence is looked up per claim (a lateral subquery the planner cannot
     * flatten into a join), so a cached generic plan cannot turn into a scan of the whole table.
     */
    private static final String JUDGE_ALL = """
            SELECT ord, token, holder, others = 1, others = 2 FROM (
                SELECT c.ord, f.token, f.holder, CASE WHEN f.token IS NOT NULL THEN (""" + OTHERS_BELOW + """
                    WHERE i.resource = c.resource AND i.instance <> ? AND i.min_token < c.token) END AS others
                FROM unnest(?::text[], ?::bigint[]) WITH ORDINALITY AS c(resource, token, ord)
                LEFT JOIN LATERAL (SELECT token, holder FROM fence WHERE resource = c.resource LIMIT 1) f ON true) j
            ORDER BY ord""";

    private ReadAndJudge() {
    }

    /** Judges {@code claims} on one read of their fences and of other instances' registrations below them. */
    static List<FenceDecision> judgeAll(Connection connection, UUID instance, List<FenceClaim> claims) throws SQLException {
        if (claims.size() == 1) {
            List<FenceDecision> one = new ArrayList<>(1);
            one.add(judgeOne(connection, instance, claims.get(0)));
            return one;
        }
        FenceDecision[] decisions = new FenceDecision[claims.size()];
        try (PreparedStatement statement = connection.prepareStatement(JUDGE_ALL)) {
            statement.setObject(1, instance);
            statement.setArray(2, SqlArrays.texts(connection, claims, claim -> claim.resource().value()));
            statement.setArray(3, SqlArrays.bigints(connection, claims, claim -> claim.token().value()));
            try (ResultSet row = statement.executeQuery()) {
                while (row.next()) {
                    int i = row.getInt(1) - 1;
                    FenceClaim claim = claims.get(i);
                    long token = row.getLong(2);
                    decisions[i] = row.wasNull() ? FencePolicy.decide(Optional.empty(), claim)
                            : judged(claim, token, row.getString(3), row.getBoolean(4), row.getBoolean(5));
                }
            }
        }
        return RaiseOrJudge.everyClaimJudged(decisions, List.of());
    }

    /** A batch of one, as a point lookup: cheaper for PostgreSQL to plan and run than the array form. */
    private static FenceDecision judgeOne(Connection connection, UUID instance, FenceClaim claim) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(JUDGE_ONE)) {
            statement.setObject(1, instance);
            statement.setLong(2, claim.token().value());
            statement.setString(3, claim.resource().value());
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return FencePolicy.decide(Optional.empty(), claim);
                }
                return judged(claim, row.getLong(1), row.getString(2), row.getBoolean(3), row.getBoolean(4));
            }
        }
    }

    /** A live lower registration elsewhere drains; failing that, an expired one drains as a possible holder. */
    static FenceDecision judged(FenceClaim claim, long token, String holder, boolean draining, boolean expiredHolder) {
        Fence fence = new Fence(claim.resource(), new FencingToken(token), Optional.ofNullable(holder).map(Holder::new));
        FenceDecision decision = FencePolicy.decide(Optional.of(fence), claim);
        if (!(decision instanceof FenceDecision.Admitted) || !draining && !expiredHolder) {
            return decision;
        }
        return new FenceDecision.Draining(claim, fence, !draining);
    }
}
