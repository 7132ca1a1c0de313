package dev.fencegate.store;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.Holder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A fence raised with no holder (an admin raise, a writer that names none) records the first
 * holder admitted at its token, so that the same token from another holder is then refused as
 * reused, as it is when the holder raised the fence itself. Without this, two holders granted one
 * token by an issuer that lost state would both get in at such a fence.
 */
final class FirstHolders {

    /**
     * Names each unnamed fence still at its claim's token after the first claim of the batch for
     * it, in claim order; a row whose token moved on, or that another batch named first, is left as
     * it is. Answers, per resource, the holder it named, or else the one the statement's snapshot
     * shows: null there can also mean another batch named it after the snapshot was taken.
     */
    private static final String NAME = """
            WITH n AS (
                SELECT DISTINCT ON (resource) resource, token, holder
                FROM unnest(?::text[], ?::bigint[], ?::text[]) WITH ORDINALITY AS n(resource, token, holder, ord)
                ORDER BY resource, ord),
            named AS (
                UPDATE fence f SET holder = n.holder, updated_at = now()
                FROM n WHERE f.resource = n.resource AND f.token = n.token AND f.holder IS NULL
                RETURNING f.resource, f.holder)
            SELECT n.resource, named.holder IS NOT NULL, coalesce(named.holder, f.holder)
            FROM n LEFT JOIN named ON named.resource = n.resource
            LEFT JOIN LATERAL (SELECT holder FROM fence WHERE resource = n.resource LIMIT 1) f ON true""";

    /** Judges claims again with a fresh read. */
    interface Judge {
        List<FenceDecision> judge(List<FenceClaim> claims) throws SQLException;
    }

    private FirstHolders() {
    }

    /**
     * A named claim admitted at an unnamed fence's token names it. One whose fence turns out named
     * by another holder meanwhile is judged again by {@code judge}, and is refused as reused there;
     * if naming fails, none of them is admitted. A naming commit that came back with a warning
     * leaves the decisions as they are: the holder is kept on the primary, and the read the claims
     * were admitted on is confirmed (or not) after this, as any read is.
     *
     * @return what naming did: whether it wrote, and whether a claim was judged on a read made
     *         after the batch's commit, which a commit after it must confirm as any read
     */
    static Outcome nameUnnamed(Connection connection, List<FenceClaim> claims, List<FenceDecision> decisions, Judge judge) {
        List<Integer> candidates = candidates(claims, decisions);
        if (candidates.isEmpty()) {
            return Outcome.NOTHING;
        }
        try {
            Named named = name(connection, claims, candidates);
            if (!named.judgeAgain().isEmpty()) {
                List<FenceDecision> again = judge.judge(named.judgeAgain().stream().map(claims::get).toList());
                for (int j = 0; j < again.size(); j++) {
                    decisions.set(named.judgeAgain().get(j), again.get(j));
                }
            }
            return new Outcome(named.wrote(), named.wrote() || !named.judgeAgain().isEmpty());
        } catch (SQLException e) {
            for (int i : candidates) {
                decisions.set(i, new FenceDecision.Unavailable(PostgresFenceStore.unavailable("the holder of the fence for "
                        + claims.get(i).resource() + " at " + claims.get(i).token() + " could not be recorded", e).getMessage()));
            }
            return Outcome.NOTHING;
        }
    }

    /**
     * {@code wrote}: a fence was named, so a commit waited for the WAL. {@code readAfterCommit}: a
     * decision now rests on what naming wrote or read after the batch's own commit (another
     * session's naming included), which no commit of the batch has confirmed yet.
     */
    record Outcome(boolean wrote, boolean readAfterCommit) {
        static final Outcome NOTHING = new Outcome(false, false);
    }

    /**
     * The positions of {@code decisions} that admitted a named claim at the fence's own token, for
     * which the fence may have been unnamed. A claim that raised the fence recorded its holder
     * with the raise; one judged at a fence that names its holder has nothing to record.
     */
    private static List<Integer> candidates(List<FenceClaim> claims, List<FenceDecision> decisions) {
        List<Integer> candidates = new ArrayList<>();
        for (int i = 0; i < decisions.size(); i++) {
            if (decisions.get(i) instanceof FenceDecision.Admitted admitted && !admitted.raised()
                    && !admitted.holderRecorded() && claims.get(i).holder().isPresent()) {
                candidates.add(i);
            }
        }
        return candidates;
    }

    /**
     * Names the unnamed fences among {@code candidates}, in one commit that waits for the WAL when
     * it names any (and writes nothing when, as most often, every fence has its holder already).
     * Returns the candidates whose fence now names another holder, or whose holder is not known
     * for sure: they are judged again by a fresh read.
     */
    private static Named name(Connection connection, List<FenceClaim> claims, List<Integer> candidates) throws SQLException {
        String[] resources = new String[candidates.size()];
        long[] tokens = new long[candidates.size()];
        String[] holders = new String[candidates.size()];
        for (int j = 0; j < candidates.size(); j++) {
            FenceClaim claim = claims.get(candidates.get(j));
            resources[j] = claim.resource().value();
            tokens[j] = claim.token().value();
            holders[j] = claim.holder().map(Holder::value).orElseThrow();
        }
        Map<String, String> recorded = new HashMap<>();
        boolean wrote = false;
        try (PreparedStatement statement = connection.prepareStatement(NAME)) {
            statement.setArray(1, SqlArrays.texts(connection, resources));
            statement.setArray(2, SqlArrays.bigints(connection, tokens));
            statement.setArray(3, SqlArrays.texts(connection, holders));
            try (ResultSet row = statement.executeQuery()) {
                while (row.next()) {
                    wrote |= row.getBoolean(2);
                    recorded.put(row.getString(1), row.getString(3));
                }
            }
        }
        List<Integer> judgeAgain = new ArrayList<>();
        for (int i : candidates) {
            FenceClaim claim = claims.get(i);
            if (!Optional.ofNullable(recorded.get(claim.resource().value())).equals(claim.holder().map(Holder::value))) {
                judgeAgain.add(i);
            }
        }
        return new Named(wrote, judgeAgain);
    }

    /** {@code wrote}: a fence was named, so the statement committed to the WAL. */
    private record Named(boolean wrote, List<Integer> judgeAgain) {
    }
}
