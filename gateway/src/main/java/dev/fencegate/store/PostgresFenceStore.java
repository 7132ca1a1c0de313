package dev.fencegate.store;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencePolicy;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Fences as PostgreSQL rows. A claim at the current token costs one indexed read and no commit;
 * raising a fence is one conditional upsert, which at READ COMMITTED re-checks its WHERE against
 * the newest committed row, so two racing raises can never lower each other.
 */
public final class PostgresFenceStore implements FenceStore {

    private static final String READ = "SELECT token, holder FROM fence WHERE resource = ?";
    /**
     * For each claim, in order: the fence, and whether another instance may still have a
     * lower-token write to the resource in flight.
     */
    private static final String JUDGE_ONE = """
            SELECT f.token, f.holder, EXISTS (
                SELECT 1 FROM fence_inflight i
                WHERE i.resource = f.resource AND i.instance <> ? AND i.min_token < ? AND i.until > now()), EXISTS (
                SELECT 1 FROM fence_inflight i
                WHERE i.resource = f.resource AND i.instance <> ? AND i.min_token < ? AND i.until <= now())
            FROM fence f WHERE f.resource = ?""";
    private static final String JUDGE_ALL = """
            SELECT c.ord, f.token, f.holder, f.token IS NOT NULL AND EXISTS (
                SELECT 1 FROM fence_inflight i
                WHERE i.resource = c.resource AND i.instance <> ? AND i.min_token < c.token AND i.until > now()),
                f.token IS NOT NULL AND EXISTS (
                SELECT 1 FROM fence_inflight i
                WHERE i.resource = c.resource AND i.instance <> ? AND i.min_token < c.token AND i.until <= now())
            FROM unnest(?::text[], ?::bigint[]) WITH ORDINALITY AS c(resource, token, ord)
            LEFT JOIN fence f ON f.resource = c.resource
            ORDER BY c.ord""";
    /** Rows of other instances that expired without being withdrawn, once a raise gave them time to hear of it. */
    private static final String FORGET_EXPIRED = "DELETE FROM fence_inflight WHERE resource = ? AND instance <> ? AND until <= now()";
    /**
     * Raises one fence, and announces the raise to every instance in the same commit, whether or
     * not anything waits: an instance holding the old fence must stop, even one whose
     * registration row is gone. Returns the row it wrote.
     */
    private static final String RAISE = """
            WITH raised AS (
                INSERT INTO fence AS f (resource, token, holder) VALUES (?, ?, ?)
                ON CONFLICT (resource) DO UPDATE
                    SET token = EXCLUDED.token, holder = EXCLUDED.holder, updated_at = now()
                    WHERE f.token < EXCLUDED.token
                RETURNING f.resource, f.token)
            SELECT resource, pg_notify(?, resource || chr(10) || token) FROM raised""";

    /** {@link #RAISE} for many claims, distinct resources in order; returns the rows it wrote. */
    private static final String RAISE_ALL = """
            WITH raised AS (
                INSERT INTO fence AS f (resource, token, holder)
                SELECT c.resource, c.token, c.holder FROM unnest(?::text[], ?::bigint[], ?::text[]) AS c(resource, token, holder)
                ON CONFLICT (resource) DO UPDATE
                    SET token = EXCLUDED.token, holder = EXCLUDED.holder, updated_at = now()
                    WHERE f.token < EXCLUDED.token
                RETURNING f.resource, f.token)
            SELECT resource, pg_notify(?, resource || chr(10) || token) FROM raised""";

    private final DataSource dataSource;
    private final UUID instance;

    /** A store for one gateway instance; {@code instance} names its rows in {@code fence_inflight}. */
    public PostgresFenceStore(DataSource dataSource, UUID instance) {
        this.dataSource = dataSource;
        this.instance = instance;
    }

    public PostgresFenceStore(DataSource dataSource) {
        this(dataSource, UUID.randomUUID());
    }

    /**
     * The common case, a claim at the current fence, is one read-only statement. A raise is a
     * conditional upsert followed by a fresh read: only a read that starts after the raise
     * committed is sure to see every other instance's in-flight registration.
     */
    @Override
    public FenceDecision admit(FenceClaim claim) {
        FenceDecision decision = admitAll(List.of(claim)).get(0);
        if (decision instanceof FenceDecision.Unavailable unavailable) {
            throw new FenceStoreUnavailableException(unavailable.detail());
        }
        return decision;
    }

    /**
     * One read-only statement judges the whole batch. The claims that raise then cost one upsert
     * for all of them, so one commit, and one more read.
     */
    @Override
    public List<FenceDecision> admitAll(List<FenceClaim> claims) {
        try (Connection connection = dataSource.getConnection()) {
            List<FenceDecision> decisions = judgeAll(connection, claims);
            List<Integer> positions = new ArrayList<>();
            List<FenceDecision.Admitted> raises = new ArrayList<>();
            for (int i = 0; i < decisions.size(); i++) {
                Optional<FenceDecision.Admitted> ifRaised = raising(decisions.get(i));
                if (ifRaised.isPresent()) {
                    positions.add(i);
                    raises.add(ifRaised.get());
                }
            }
            if (!raises.isEmpty()) {
                List<FenceDecision> raised = raiseAndJudge(connection, raises);
                for (int j = 0; j < positions.size(); j++) {
                    decisions.set(positions.get(j), raised.get(j));
                }
            }
            askOthersToRelease(connection, decisions);
            return decisions;
        } catch (SQLException e) {
            throw unavailable("fences for " + claims.size() + " claim(s), first " + claims.get(0).resource()
                    + ", could not be checked", e);
        }
    }

    /** Instances holding an idle registration on a resource we wait for hear about it and let go. */
    private static void askOthersToRelease(Connection connection, List<FenceDecision> decisions) throws SQLException {
        for (FenceDecision decision : decisions) {
            if (decision instanceof FenceDecision.Draining draining) {
                try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
                    notify.setString(1, InflightListener.CHANNEL);
                    notify.setString(2, InflightListener.notice(draining.claim().resource(), draining.claim().token().value()));
                    notify.execute();
                }
            }
        }
    }

    /**
     * A claim above the fence raises it, even when lower-token writes of another instance are
     * still in flight: the raise turns away further writes at the old token, so those in flight
     * drain and the claim can go ahead. Empty for a claim that does not raise.
     */
    private static Optional<FenceDecision.Admitted> raising(FenceDecision first) {
        if (first instanceof FenceDecision.Admitted admitted && admitted.raised()) {
            return Optional.of(admitted);
        }
        if (first instanceof FenceDecision.Draining draining && draining.current().token().isBelow(draining.claim().token())) {
            return Optional.of(new FenceDecision.Admitted(draining.claim(), Optional.of(draining.current().token())));
        }
        return Optional.empty();
    }

    /**
     * Raises every claim's fence in one statement, then judges the claims again with a read that
     * starts after the raise committed: only such a read is sure to see every other instance's
     * in-flight registration. A claim keeps its first answer only when its own token went in.
     */
    private List<FenceDecision> raiseAndJudge(Connection connection, List<FenceDecision.Admitted> raises) {
        List<FenceClaim> claims = raises.stream().map(FenceDecision.Admitted::claim).toList();
        try {
            Set<FenceClaim> raisedBy = raise(connection, claims);
            List<FenceDecision> second = judgeAll(connection, claims);
            List<FenceDecision> decisions = new ArrayList<>(claims.size());
            for (int i = 0; i < claims.size(); i++) {
                boolean took = raisedBy.contains(claims.get(i)) && second.get(i) instanceof FenceDecision.Admitted;
                decisions.add(took ? raises.get(i) : second.get(i));
            }
            return decisions;
        } catch (SQLException e) {
            return unavailableFor(claims, unavailable("fences for " + claims.size() + " claim(s), first "
                    + claims.get(0).resource() + ", could not be raised", e).getMessage());
        } catch (FenceStoreUnavailableException e) {
            return unavailableFor(claims, e.getMessage());
        }
    }

    private static List<FenceDecision> unavailableFor(List<FenceClaim> claims, String detail) {
        List<FenceDecision> decisions = new ArrayList<>(claims.size());
        claims.forEach(claim -> decisions.add(new FenceDecision.Unavailable(detail)));
        return decisions;
    }

    @Override
    public Optional<Fence> read(ResourceKey resource) {
        try (Connection connection = dataSource.getConnection()) {
            return read(connection, resource);
        } catch (SQLException e) {
            throw unavailable("fence for " + resource + " could not be read", e);
        }
    }

    private List<FenceDecision> judgeAll(Connection connection, List<FenceClaim> claims) throws SQLException {
        if (claims.size() == 1) {
            List<FenceDecision> one = new ArrayList<>(1);
            one.add(judgeOne(connection, claims.get(0)));
            return one;
        }
        String[] resources = new String[claims.size()];
        Long[] tokens = new Long[claims.size()];
        for (int i = 0; i < claims.size(); i++) {
            resources[i] = claims.get(i).resource().value();
            tokens[i] = claims.get(i).token().value();
        }
        List<FenceDecision> decisions = new ArrayList<>(claims.size());
        try (PreparedStatement statement = connection.prepareStatement(JUDGE_ALL)) {
            statement.setObject(1, instance);
            statement.setObject(2, instance);
            statement.setArray(3, connection.createArrayOf("text", resources));
            statement.setArray(4, connection.createArrayOf("bigint", tokens));
            try (ResultSet row = statement.executeQuery()) {
                while (row.next()) {
                    FenceClaim claim = claims.get(row.getInt(1) - 1);
                    long token = row.getLong(2);
                    if (row.wasNull()) {
                        decisions.add(FencePolicy.decide(Optional.empty(), claim));
                        continue;
                    }
                    decisions.add(judged(claim, token, row.getString(3), row.getBoolean(4), row.getBoolean(5)));
                }
            }
        }
        return decisions;
    }

    /** A batch of one, as a point lookup: cheaper for PostgreSQL to plan and run than the array form. */
    private FenceDecision judgeOne(Connection connection, FenceClaim claim) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(JUDGE_ONE)) {
            statement.setObject(1, instance);
            statement.setLong(2, claim.token().value());
            statement.setObject(3, instance);
            statement.setLong(4, claim.token().value());
            statement.setString(5, claim.resource().value());
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return FencePolicy.decide(Optional.empty(), claim);
                }
                return judged(claim, row.getLong(1), row.getString(2), row.getBoolean(3), row.getBoolean(4));
            }
        }
    }

    /** A live lower registration elsewhere drains; failing that, an expired one drains as a possible holder. */
    private static FenceDecision judged(FenceClaim claim, long token, String holder, boolean draining, boolean expiredHolder) {
        Fence fence = new Fence(claim.resource(), new FencingToken(token), Optional.ofNullable(holder).map(Holder::new));
        FenceDecision decision = FencePolicy.decide(Optional.of(fence), claim);
        if (!(decision instanceof FenceDecision.Admitted) || !draining && !expiredHolder) {
            return decision;
        }
        return new FenceDecision.Draining(claim, fence, !draining);
    }

    @Override
    public void forgetExpiredRegistrations(ResourceKey resource) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement(FORGET_EXPIRED)) {
            delete.setString(1, resource.value());
            delete.setObject(2, instance);
            delete.executeUpdate();
        } catch (SQLException e) {
            throw unavailable("expired registrations for " + resource + " could not be removed", e);
        }
    }

    private static Optional<Fence> read(Connection connection, ResourceKey resource) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(READ)) {
            statement.setString(1, resource.value());
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Fence(resource, new FencingToken(row.getLong(1)),
                        Optional.ofNullable(row.getString(2)).map(Holder::new)));
            }
        }
    }

    /**
     * Raises the fences in one statement and one commit; returns the claims whose token (and
     * holder) went in. Per resource only the highest claim is written, the first of equals:
     * a statement may change a row once. Rows are written in resource order, so two batches
     * raising the same resources take their locks in the same order and never deadlock.
     */
    private static Set<FenceClaim> raise(Connection connection, List<FenceClaim> claims) throws SQLException {
        Map<ResourceKey, FenceClaim> highest = new TreeMap<>(Comparator.comparing(ResourceKey::value));
        for (FenceClaim claim : claims) {
            highest.merge(claim.resource(), claim, (kept, next) -> kept.token().isBelow(next.token()) ? next : kept);
        }
        Set<FenceClaim> raised = new HashSet<>();
        // One row, the common raise, takes the plain statement: cheaper to plan than the array form.
        if (highest.size() == 1) {
            FenceClaim claim = highest.values().iterator().next();
            try (PreparedStatement statement = connection.prepareStatement(RAISE)) {
                statement.setString(1, claim.resource().value());
                statement.setLong(2, claim.token().value());
                statement.setString(3, claim.holder().map(Holder::value).orElse(null));
                statement.setString(4, InflightListener.CHANNEL);
                boolean wrote;
                try (ResultSet changed = statement.executeQuery()) {
                    wrote = changed.next();
                }
                requireDurable(statement.getWarnings(), claim);
                if (wrote) {
                    raised.add(claim);
                }
            }
            return raised;
        }
        List<FenceClaim> rows = List.copyOf(highest.values());
        try (PreparedStatement statement = connection.prepareStatement(RAISE_ALL)) {
            statement.setArray(1, connection.createArrayOf("text", rows.stream().map(c -> c.resource().value()).toArray()));
            statement.setArray(2, connection.createArrayOf("bigint", rows.stream().map(c -> c.token().value()).toArray()));
            statement.setArray(3, connection.createArrayOf("text",
                    rows.stream().map(c -> c.holder().map(Holder::value).orElse(null)).toArray()));
            statement.setString(4, InflightListener.CHANNEL);
            try (ResultSet changed = statement.executeQuery()) {
                Set<String> resources = new HashSet<>();
                while (changed.next()) {
                    resources.add(changed.getString(1));
                }
                requireDurable(statement.getWarnings(), rows.get(0));
                rows.stream().filter(c -> resources.contains(c.resource().value())).forEach(raised::add);
            }
        }
        return raised;
    }

    /**
     * A commit that comes back with a warning (a cancelled wait for a synchronous standby) is
     * visible but not durable; admitting on it could lose the fence in a failover.
     */
    private static void requireDurable(SQLWarning warning, FenceClaim claim) {
        if (warning != null) {
            throw new FenceStoreUnavailableException("fence for " + claim.resource() + " raised to " + claim.token()
                    + " but the commit is not confirmed durable: " + warning.getMessage());
        }
    }

    private static FenceStoreUnavailableException unavailable(String what, SQLException e) {
        return new FenceStoreUnavailableException(what + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
}
