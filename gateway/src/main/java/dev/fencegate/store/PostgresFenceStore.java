package dev.fencegate.store;

import dev.fencegate.fence.BatchRegistration;
import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.RegistrationRows;
import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Fences as PostgreSQL rows. A claim at the current token costs one indexed read and no commit;
 * raising a fence is one conditional upsert, which at READ COMMITTED re-checks its WHERE against
 * the newest committed row, so two racing raises can never lower each other.
 */
public final class PostgresFenceStore implements FenceStore {

    private static final String READ = "SELECT token, holder FROM fence WHERE resource = ?";
    /** As {@link #READ}, for many resources in one statement: each looked up by its key. */
    private static final String READ_ALL = """
            SELECT r.resource, f.token, f.holder FROM unnest(?::text[]) AS r(resource)
            JOIN LATERAL (SELECT token, holder FROM fence WHERE resource = r.resource LIMIT 1) f ON true""";
    /**
     * Rows of other instances that expired without being withdrawn, once a raise gave them time to
     * hear of it; each removal is told to its instance, so one still alive (the database clock
     * jumped) stops sending under it and registers again before its next write.
     */
    private static final String FORGET_EXPIRED = """
            WITH gone AS (
                DELETE FROM fence_inflight WHERE resource = ? AND instance <> ? AND until <= now() RETURNING resource, instance)
            SELECT pg_notify(?, instance::text || chr(10) || resource) FROM gone""";
    private final DataSource dataSource;
    private final UUID instance;
    private final StandbyConfirmation standbys;
    private final LongAdder commits = new LongAdder();
    private final LongAdder upsertedAgain = new LongAdder();

    /**
     * A store for one gateway instance; {@code instance} names its rows in {@code fence_inflight}.
     * {@code standbysNamed} says whether a commit may come back visible but unconfirmed by
     * synchronous standbys ({@link DurabilityGuard#standbysNamed}).
     */
    public PostgresFenceStore(DataSource dataSource, UUID instance, BooleanSupplier standbysNamed) {
        this(dataSource, instance, standbysNamed, false);
    }

    /**
     * @param standbyMustConfirm the database is replicated ({@code --require-sync-standby}): no
     *                           claim is admitted on a commit the synchronous standbys may not have
     */
    public PostgresFenceStore(DataSource dataSource, UUID instance, BooleanSupplier standbysNamed, boolean standbyMustConfirm) {
        this.dataSource = dataSource;
        this.instance = instance;
        this.standbys = new StandbyConfirmation(instance, standbysNamed, standbyMustConfirm);
    }

    /** A store on a server without synchronous standbys. */
    public PostgresFenceStore(DataSource dataSource, UUID instance) {
        this(dataSource, instance, () -> false);
    }

    public PostgresFenceStore(DataSource dataSource) {
        this(dataSource, UUID.randomUUID());
    }

    /**
     * The common case, a claim at the current fence, is one statement that writes nothing. A raise
     * is that statement, which commits it, followed by a fresh read: only a read that starts after
     * the raise committed is sure to see every other instance's in-flight registration.
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
     * One statement judges the claims at or below their fence and raises the others, all of them
     * in one commit; one more read, after that commit, judges the claims that raised or tried to.
     * A claim the first statement judged was read after its registration committed, as before a
     * raise; a claim that raised is judged only by the read after it.
     */
    @Override
    public List<FenceDecision> admitAll(List<FenceClaim> claims) {
        return admitAll(claims, Map.of(), false, Duration.ZERO, written -> { }, () -> { });
    }

    /**
     * As {@link #admitAll(List)}, with the batch's registrations written by the same statement, so
     * in the same commit as its raises: one commit per batch. A claim registered by it is judged
     * only by the read after that commit, like a raise, since only then is its registration sure
     * to be visible to every instance; the rows are handed back before that read.
     */
    @Override
    public List<FenceDecision> admitAll(List<FenceClaim> claims, BatchRegistration registration) {
        return admitAll(claims, registration.minTokens(), registration.rowsUnknown(), registration.length(),
                registration::written, registration::mayHaveCommitted);
    }

    private List<FenceDecision> admitAll(List<FenceClaim> claims, Map<ResourceKey, Long> register, boolean rowsUnknown,
                                         Duration length, Consumer<List<RegistrationRows.Written>> registered, Runnable inDoubt) {
        Connection pooled;
        try {
            pooled = dataSource.getConnection();
        } catch (SQLException e) {
            throw unavailable("fences for " + claims.size() + " claim(s), first " + claims.get(0).resource()
                    + ", could not be checked", e);
        }
        boolean ran = false;
        try (Connection connection = pooled) {
            RaiseOrJudge.Look first;
            try {
                first = RaiseOrJudge.run(connection, instance, claims, register, rowsUnknown, length);
                ran = true;
            } catch (SQLException e) {
                if (DatabaseProblem.mayHaveCommitted(e)) {
                    // Sent, and perhaps committed before the answer was lost.
                    inDoubt.run();
                }
                throw e;
            }
            if (first.upsertedAgain()) {
                upsertedAgain.increment();
            }
            if (first.committed()) {
                commits.increment();
            }
            registered.accept(first.registered());
            List<FenceDecision> decisions = first.decisions();
            if (!first.again().isEmpty()) {
                List<FenceDecision> again = judgeAfterCommit(connection, claims, first);
                for (int j = 0; j < first.again().size(); j++) {
                    decisions.set(first.again().get(j), again.get(j));
                }
            }
            // Announced at once: a step below that fails must not leave a committed raise untold.
            Set<Integer> announced = askOthersToRelease(connection, decisions, Set.of());
            FirstHolders.Outcome named = FirstHolders.nameUnnamed(connection, claims, decisions, again -> ReadAndJudge.judgeAll(connection, instance, again));
            if (named.wrote()) {
                commits.increment();
            }
            if (standbys.confirmReadsDurable(connection, claims, first, decisions, named.readAfterCommit())) {
                commits.increment();
            }
            standbys.confirmStandbysStillNamed(connection, claims, decisions);
            askOthersToRelease(connection, decisions, announced);
            return decisions;
        } catch (SQLException e) {
            // After the batch's statement, or as its answer was lost: what it raised may have
            // committed, and may not have been announced.
            throw new FenceStoreUnavailableException(unavailable("fences for " + claims.size() + " claim(s), first "
                    + claims.get(0).resource() + ", could not be checked", e).getMessage(), e,
                    ran || DatabaseProblem.mayHaveCommitted(e));
        }
    }

    /**
     * Judges the claims that raised, tried to, or were registered by the first statement, with a
     * read that starts after its commit. A claim whose own token went in keeps the fence it
     * replaced as its previous one. A commit that came back with a warning (a cancelled wait for a
     * synchronous standby) is visible but not durable: admitting on it could lose the fence or the
     * registration in a failover, so none of them is admitted. Every claim judged here is at or
     * below the fence its statement left, which never goes down: a read that finds the fence below
     * a claim, or none, finds a raise the database acknowledged but did not make (a trigger or rule
     * added to the fence table that drops the row), and admits nothing on it.
     */
    private List<FenceDecision> judgeAfterCommit(Connection connection, List<FenceClaim> claims, RaiseOrJudge.Look first) {
        List<FenceClaim> again = first.again().stream().map(claims::get).toList();
        if (first.warning() != null) {
            FenceClaim claim = again.get(0);
            // Committed on the primary all the same: the raise is visible there, and not announced.
            String detail = "fence for " + claim.resource() + " raised to or registered at " + claim.token()
                    + " but the commit is not confirmed durable: " + first.warning().getMessage();
            List<FenceDecision> unconfirmed = new ArrayList<>(again.size());
            again.forEach(each -> unconfirmed.add(new FenceDecision.Unavailable(detail, true)));
            return unconfirmed;
        }
        try {
            List<FenceDecision> second = ReadAndJudge.judgeAll(connection, instance, again);
            List<FenceDecision> decisions = new ArrayList<>(again.size());
            for (int j = 0; j < again.size(); j++) {
                if (second.get(j) instanceof FenceDecision.Admitted read && read.raised()) {
                    decisions.add(new FenceDecision.Unavailable("fence for " + again.get(j).resource() + " was to be at "
                            + again.get(j).token() + " or above once the batch committed, but reads "
                            + read.previous().map(Object::toString).orElse("as none")
                            + ": the database acknowledged a raise it did not make (a trigger or rule on the fence table?)"));
                    continue;
                }
                Optional<FencingToken> replaced = first.wrote().get(first.again().get(j));
                boolean took = replaced != null && second.get(j) instanceof FenceDecision.Admitted;
                decisions.add(took ? new FenceDecision.Admitted(again.get(j), replaced) : second.get(j));
            }
            return decisions;
        } catch (SQLException e) {
            List<FenceDecision> unjudged = new ArrayList<>(again.size());
            String detail = unavailable("fences for " + again.size() + " claim(s), first " + again.get(0).resource()
                    + ", were raised or registered but could not be judged", e).getMessage();
            again.forEach(claim -> unjudged.add(new FenceDecision.Unavailable(detail, true)));
            return unjudged;
        }
    }

    /**
     * A claim that waits for another instance's registration announces its token, in one
     * statement for the batch: that instance stops holding the fence below it and stops sending
     * its unsent writes below it, and lets an idle registration go. This is how raises reach the
     * instances they concern: a raise that waits for nobody has nobody to tell (every instance
     * that may hold a fence or send to it is registered, and the read after the raise's commit
     * sees every registration committed before it; one committed later was read after the raise).
     */
    private static Set<Integer> askOthersToRelease(Connection connection, List<FenceDecision> decisions, Set<Integer> already)
            throws SQLException {
        List<String> notices = new ArrayList<>();
        Set<Integer> asked = new HashSet<>(already);
        for (int i = 0; i < decisions.size(); i++) {
            if (decisions.get(i) instanceof FenceDecision.Draining draining && asked.add(i)) {
                notices.add(InflightListener.notice(draining.claim().resource(), draining.claim().token().value()));
            }
        }
        if (notices.isEmpty()) {
            return asked;
        }
        try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, n) FROM unnest(?::text[]) AS n")) {
            notify.setString(1, InflightListener.CHANNEL);
            notify.setArray(2, SqlArrays.texts(connection, notices.toArray(String[]::new)));
            notify.execute();
        }
        return asked;
    }

    /** Commits made by fence checks; a batch's registrations and raises share one. */
    public long commits() {
        return commits.sum();
    }

    /**
     * Batches judged a second time because a row their statement meant to insert was there: a
     * fence created since the snapshot (by another instance or batch), or a registration of this
     * instance whose withdrawal had not committed.
     */
    public long upsertedAgain() {
        return upsertedAgain.sum();
    }

    @Override
    public Optional<Fence> read(ResourceKey resource) {
        try (Connection connection = dataSource.getConnection()) {
            return read(connection, resource);
        } catch (SQLException e) {
            throw unavailable("fence for " + resource + " could not be read", e);
        }
    }

    @Override
    public Map<ResourceKey, Fence> readAll(Collection<ResourceKey> resources) {
        Map<ResourceKey, Fence> fences = new HashMap<>();
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(READ_ALL)) {
            statement.setArray(1, SqlArrays.texts(connection, resources, ResourceKey::value));
            try (ResultSet row = statement.executeQuery()) {
                while (row.next()) {
                    ResourceKey resource = new ResourceKey(row.getString(1));
                    fences.put(resource, new Fence(resource, new FencingToken(row.getLong(2)),
                            Optional.ofNullable(row.getString(3)).map(Holder::new)));
                }
            }
            return fences;
        } catch (SQLException e) {
            throw unavailable("the fences of " + resources.size() + " resources could not be read", e);
        }
    }

    @Override
    public void forgetExpiredRegistrations(ResourceKey resource) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement(FORGET_EXPIRED)) {
            delete.setString(1, resource.value());
            delete.setObject(2, instance);
            delete.setString(3, InflightListener.ROW_REMOVED_CHANNEL);
            delete.execute();
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

    static FenceStoreUnavailableException unavailable(String what, SQLException e) {
        return new FenceStoreUnavailableException(what + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
}
