package dev.fencegate.store;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.HeldFence;
import dev.fencegate.fence.InflightRegistrations;
import dev.fencegate.fence.LocalInflight;
import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * This instance's rows in {@code fence_inflight}. A row is written only when the local writes
 * need more than it covers (a lower token, or a later end), so a holder writing steadily with its
 * token costs no commit per write. Rows are withdrawn once the resource has been idle here for
 * a short while, and narrowed when the lowest local token rises, so other instances' raises do
 * not wait on writes that are done. Each row carries a generation so a withdrawal never removes
 * a row that a concurrent cover has just renewed.
 *
 * <p>Fences are held only while the {@link InflightListener} has confirmed its connection within
 * {@link #LISTENER_FRESH}: it is how this instance hears of raises made outside its own checks.
 */
public final class PostgresInflightRegistrations implements InflightRegistrations, InflightListener.Notices {

    /** How recently the listener must have answered for held fences to be used. */
    static final Duration LISTENER_FRESH = Duration.ofSeconds(1);
    /** Rows of resources still written here are renewed this long before writes would have to. */
    private static final Duration RENEW_AHEAD = Duration.ofSeconds(5);

    private static final String COVER_ALL = """
            INSERT INTO fence_inflight AS i (resource, instance, min_token, until, generation)
            SELECT c.resource, ?, c.min_token, now() + make_interval(secs => ?), 1
            FROM unnest(?::text[], ?::bigint[]) AS c(resource, min_token)
            ON CONFLICT (resource, instance) DO UPDATE
                SET min_token = least(i.min_token, EXCLUDED.min_token),
                    until = greatest(i.until, EXCLUDED.until),
                    generation = i.generation + 1
            RETURNING resource, min_token, generation""";
    private static final String WITHDRAW = "DELETE FROM fence_inflight WHERE resource = ? AND instance = ? AND generation = ?";
    private static final String NARROW = "UPDATE fence_inflight SET min_token = ? WHERE resource = ? AND instance = ? AND generation = ?";

    /** What this instance last wrote for a resource; its expiry is a local-clock lower bound. */
    private record Registered(long minToken, long generation, long expiresNanos) {
    }

    private final DataSource dataSource;
    private final UUID instance;
    private final LocalInflight local;
    private final long windowNanos;
    private final long idleReleaseNanos;
    private final Map<ResourceKey, Registered> registered = new ConcurrentHashMap<>();
    /** Resources another instance is waiting on: released as soon as nothing local needs them. */
    private final Set<ResourceKey> wanted = ConcurrentHashMap.newKeySet();
    /**
     * Fences held, by resource; under the local lock. Dropping a slot also voids every read
     * still under way for it, so a raise heard meanwhile is never overwritten by an older answer.
     */
    private final Map<ResourceKey, HeldSlot> held = new HashMap<>();
    /** When the listener last confirmed it had heard everything sent before; under the local lock. */
    private long listenerConfirmedNanos;
    private boolean listenerConfirmed;

    private static final class HeldSlot {
        private HeldFence fence;
    }

    /**
     * @param window      how long any one write of this instance can be in flight (store timeout plus the unknown-outcome hold)
     * @param idleRelease how long a resource stays registered after its last local write finished
     */
    public PostgresInflightRegistrations(DataSource dataSource, UUID instance, LocalInflight local, Duration window,
                                         Duration idleRelease) {
        this.dataSource = dataSource;
        this.instance = instance;
        this.local = local;
        this.windowNanos = window.toNanos();
        this.idleReleaseNanos = idleRelease.toNanos();
    }

    @Override
    public void cover(FenceClaim claim) {
        coverAll(List.of(claim));
    }

    /** One statement, and one commit, for every claim the current rows do not cover; none when all are. */
    @Override
    public void coverAll(List<FenceClaim> claims) {
        long now = System.nanoTime();
        Map<ResourceKey, Long> needed = new TreeMap<>(Comparator.comparing(ResourceKey::value));
        synchronized (local.lock()) {
            for (FenceClaim claim : claims) {
                Registered current = registered.get(claim.resource());
                if (current == null || current.minToken() > claim.token().value() || current.expiresNanos() - now <= windowNanos) {
                    needed.merge(claim.resource(), claim.token().value(), Math::min);
                }
            }
        }
        if (!needed.isEmpty()) {
            register(needed, now);
        }
    }

    /**
     * Writes rows covering {@code minTokens} for two windows, so a steady writer renews about once
     * per window; in resource order, so two batches never wait on each other's rows in a cycle.
     */
    private void register(Map<ResourceKey, Long> minTokens, long now) {
        double seconds = 2.0 * windowNanos / 1e9;
        try (Connection connection = dataSource.getConnection();
             PreparedStatement upsert = connection.prepareStatement(COVER_ALL)) {
            upsert.setObject(1, instance);
            upsert.setDouble(2, seconds);
            upsert.setArray(3, connection.createArrayOf("text", minTokens.keySet().stream().map(ResourceKey::value).toArray()));
            upsert.setArray(4, connection.createArrayOf("bigint", minTokens.values().toArray()));
            try (ResultSet row = upsert.executeQuery()) {
                while (row.next()) {
                    Registered renewed = new Registered(row.getLong(2), row.getLong(3), now + 2 * windowNanos);
                    synchronized (local.lock()) {
                        registered.merge(new ResourceKey(row.getString(1)), renewed,
                                (old, fresh) -> fresh.generation() >= old.generation() ? fresh : old);
                    }
                }
            }
        } catch (SQLException e) {
            throw new FenceStoreUnavailableException("in-flight registration for " + minTokens.size() + " resource(s), first "
                    + minTokens.keySet().iterator().next() + ", failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
        }
    }

    /** Every registration: idle, expired, narrower or wanted elsewhere. */
    @Override
    public void reconcile() {
        reconcile(registered.keySet(), true);
    }

    /**
     * Only the registrations another instance waits on: cheap enough to run often, so a
     * hand-over is not held up by the full sweep's slower pace.
     */
    public void reconcileWanted() {
        if (!wanted.isEmpty()) {
            reconcile(List.copyOf(wanted), false);
        }
    }

    /**
     * Withdraws and narrows; with {@code renew}, also renews ahead of time the rows of resources
     * still written here, in one statement, so their writes never wait for a renewal and a fence
     * held under them stays usable.
     */
    private void reconcile(Iterable<ResourceKey> resources, boolean renew) {
        List<Object[]> withdrawals = new ArrayList<>();
        List<Object[]> narrowings = new ArrayList<>();
        Map<ResourceKey, Long> renewals = new TreeMap<>(Comparator.comparing(ResourceKey::value));
        long renewBelow = windowNanos + Math.min(windowNanos / 2, RENEW_AHEAD.toNanos());
        long now = System.nanoTime();
        // The lock is taken per resource, not across the sweep: event loops enter claims under it.
        for (ResourceKey resource : resources) {
            synchronized (local.lock()) {
                boolean wantedElsewhere = wanted.remove(resource);
                Registered row = registered.get(resource);
                if (row == null) {
                    continue;
                }
                OptionalLong lowest = local.lowest(resource);
                if (lowest.isEmpty() && (wantedElsewhere || local.idleFor(resource, idleReleaseNanos) || now - row.expiresNanos() > 0)) {
                    registered.remove(resource);
                    held.remove(resource);
                    local.forget(resource);
                    withdrawals.add(new Object[] {resource.value(), row.generation()});
                } else {
                    long minToken = row.minToken();
                    if (lowest.isPresent() && lowest.getAsLong() > row.minToken()) {
                        // Covers arriving from now on see the higher minimum and write their own row.
                        minToken = lowest.getAsLong();
                        registered.put(resource, new Registered(minToken, row.generation(), row.expiresNanos()));
                        narrowings.add(new Object[] {minToken, resource.value(), row.generation()});
                    }
                    if (renew && row.expiresNanos() - now < renewBelow
                            && (lowest.isPresent() || !local.idleFor(resource, idleReleaseNanos))) {
                        renewals.put(resource, minToken);
                    }
                }
            }
        }
        if (!renewals.isEmpty()) {
            try {
                register(renewals, now);
            } catch (FenceStoreUnavailableException e) {
                // The writes renew for themselves, or get 503, when the rows run short.
            }
        }
        if (withdrawals.isEmpty() && narrowings.isEmpty()) {
            return;
        }
        try (Connection connection = dataSource.getConnection()) {
            batch(connection, WITHDRAW, withdrawals, (statement, row) -> {
                statement.setString(1, (String) row[0]);
                statement.setObject(2, instance);
                statement.setLong(3, (Long) row[1]);
            });
            batch(connection, NARROW, narrowings, (statement, row) -> {
                statement.setLong(1, (Long) row[0]);
                statement.setString(2, (String) row[1]);
                statement.setObject(3, instance);
                statement.setLong(4, (Long) row[2]);
            });
        } catch (SQLException e) {
            // Harmless: a row left behind only delays other instances' raises until it expires.
        }
    }

    /**
     * Withdraws every row of this instance on a clean stop, so other instances' raises do not wait
     * for the rows to expire; only when nothing of this instance may still land at the store.
     */
    public void withdrawAllIfIdle() {
        if (!local.isEmpty()) {
            return;
        }
        try (Connection connection = dataSource.getConnection();
             PreparedStatement delete = connection.prepareStatement("DELETE FROM fence_inflight WHERE instance = ?")) {
            delete.setObject(1, instance);
            delete.executeUpdate();
            synchronized (local.lock()) {
                registered.clear();
                held.clear();
            }
        } catch (SQLException e) {
            // The rows expire by themselves; a stop must not fail on it.
        }
    }

    /**
     * Another instance waits to raise the fence of {@code resource}, or it was changed from
     * outside: stop holding it, and withdraw this instance's row at the next reconcile if nothing
     * here is in flight, rather than after the idle delay.
     */
    @Override
    public void wanted(ResourceKey resource) {
        synchronized (local.lock()) {
            held.remove(resource);
            if (registered.containsKey(resource)) {
                wanted.add(resource);
            }
        }
    }

    @Override
    public void confirmed(long sinceNanos) {
        synchronized (local.lock()) {
            listenerConfirmedNanos = sinceNanos;
            listenerConfirmed = true;
        }
    }

    @Override
    public void lost() {
        synchronized (local.lock()) {
            listenerConfirmed = false;
            held.clear();
        }
    }

    @Override
    public Hold startHolding(FenceClaim claim) {
        if (!listenerFresh(System.nanoTime())) {
            return Hold.NONE;
        }
        ResourceKey resource = claim.resource();
        HeldSlot slot = held.computeIfAbsent(resource, r -> new HeldSlot());
        return admitted -> {
            if (held.get(resource) != slot) {
                return;
            }
            if (slot.fence == null || slot.fence.token() < admitted.token().value()) {
                slot.fence = HeldFence.of(admitted);
            } else {
                slot.fence = slot.fence.and(admitted);
            }
        };
    }

    @Override
    public boolean heldFenceAdmits(FenceClaim claim) {
        HeldSlot slot = held.get(claim.resource());
        if (slot == null || slot.fence == null || !slot.fence.admits(claim)) {
            return false;
        }
        long now = System.nanoTime();
        Registered row = registered.get(claim.resource());
        return row != null && row.minToken() <= claim.token().value() && row.expiresNanos() - now > windowNanos
                && listenerFresh(now);
    }

    @Override
    public void dropHeld(ResourceKey resource) {
        held.remove(resource);
    }

    private boolean listenerFresh(long now) {
        return listenerConfirmed && now - listenerConfirmedNanos < LISTENER_FRESH.toNanos();
    }

    private interface Binder {
        void bind(PreparedStatement statement, Object[] row) throws SQLException;
    }

    private static void batch(Connection connection, String sql, List<Object[]> rows, Binder binder) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (Object[] row : rows) {
                binder.bind(statement, row);
                statement.addBatch();
            }
            statement.executeBatch();
        }
    }
}
