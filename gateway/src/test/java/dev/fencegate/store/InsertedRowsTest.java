package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A batch inserts the fence rows its snapshot shows missing, and its registrations when the
 * instance knows of no row of its own, rather than upserting them. A row that is there after all
 * costs the batch a second statement, with upserts, and never a decision.
 */
class InsertedRowsTest {

    private static FenceDatabase database;

    @BeforeAll
    static void openDatabase() {
        database = TestPostgres.migrated(InsertedRowsTest.class.getSimpleName());
    }

    @AfterAll
    static void closeDatabase() {
        if (database != null) {
            database.close();
        }
    }

    @Test
    void aFenceRowCreatedAfterTheBatchsSnapshotIsRaisedByTheSecondStatementNotLost() throws Exception {
        PostgresFenceStore store = new PostgresFenceStore(database.dataSource());
        ResourceKey contested = key();
        ResourceKey fresh = key();
        long before = store.upsertedAgain();
        CompletableFuture<List<FenceDecision>> batch;
        try (Connection other = database.dataSource().getConnection()) {
            other.setAutoCommit(false);
            try (PreparedStatement insert = other.prepareStatement("INSERT INTO fence (resource, token) VALUES (?, 5)")) {
                insert.setString(1, contested.value());
                insert.executeUpdate();
            }
            // The batch's snapshot does not see the uncommitted row; its insert of the same key waits for it.
            batch = CompletableFuture.supplyAsync(() -> store.admitAll(List.of(
                    new FenceClaim(contested, new FencingToken(7), Optional.empty()),
                    new FenceClaim(fresh, new FencingToken(1), Optional.empty()),
                    new FenceClaim(contested, new FencingToken(3), Optional.empty()))));
            await().atMost(Duration.ofSeconds(10)).until(InsertedRowsTest::aFenceCheckWaitsOnARowLock);
            other.commit();
        }

        List<FenceDecision> decisions = batch.get(10, TimeUnit.SECONDS);
        assertThat(store.upsertedAgain() - before).as("batches judged again with upserts").isEqualTo(1);
        assertThat(decisions).extracting(FenceDecision::kind).containsExactly(
                FenceDecision.Kind.ADMITTED, FenceDecision.Kind.ADMITTED, FenceDecision.Kind.STALE);
        assertThat(((FenceDecision.Admitted) decisions.get(0)).previous()).contains(new FencingToken(5));
        assertThat(store.read(contested).map(Fence::token)).contains(new FencingToken(7));
        assertThat(store.read(fresh).map(Fence::token)).contains(new FencingToken(1));
    }

    @Test
    void aBatchOfNewFencesIsOneStatementAndARegistrationLeftBehindCostsOneMore() throws Exception {
        try (FenceInstance instance = new FenceInstance(database, new FenceInstance.FakeClock(), HeldFencesTest.TIMING,
                100, false)) {
            ResourceKey clean = key();
            assertThat(instance.write(new FenceClaim(clean, new FencingToken(4), Optional.empty())))
                    .isInstanceOf(FenceDecision.Admitted.class);
            assertThat(instance.postgres.upsertedAgain()).as("a new fence with no row of this instance").isZero();

            // A row of this instance the instance does not know of: a withdrawal that did not commit.
            ResourceKey leftBehind = key();
            execute("INSERT INTO fence_inflight (resource, instance, min_token, until, generation)"
                    + " VALUES (?, ?, 3, now() + interval '8 seconds', 1)", leftBehind.value(), instance.id);
            FenceDecision decision = instance.write(new FenceClaim(leftBehind, new FencingToken(5), Optional.empty()));

            assertThat(decision).isInstanceOf(FenceDecision.Admitted.class);
            assertThat(instance.postgres.upsertedAgain()).as("batches judged again with upserts").isEqualTo(1);
            List<Long> row = registration(leftBehind, instance.id);
            assertThat(row.get(0)).as("min token").isEqualTo(3L);
            assertThat(row.get(1)).as("generation: written again").isGreaterThan(1L);
            assertThat(instance.postgres.read(leftBehind).map(Fence::token)).contains(new FencingToken(5));
        }
    }

    private static ResourceKey key() {
        return new ResourceKey("/inserted/" + UUID.randomUUID());
    }

    /** Whether a session of this test's pool (they share its application name) waits on a lock. */
    private static boolean aFenceCheckWaitsOnARowLock() throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement waiting = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE application_name = current_setting('application_name') AND wait_event_type = 'Lock'");
             ResultSet row = waiting.executeQuery()) {
            return row.next() && row.getInt(1) > 0;
        }
    }

    private static void execute(String sql, Object... values) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            statement.executeUpdate();
        }
    }

    private static List<Long> registration(ResourceKey resource, UUID instance) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT min_token, generation FROM fence_inflight WHERE resource = ? AND instance = ?")) {
            select.setString(1, resource.value());
            select.setObject(2, instance);
            try (ResultSet row = select.executeQuery()) {
                assertThat(row.next()).as("a registration row").isTrue();
                return List.of(row.getLong(1), row.getLong(2));
            }
        }
    }
}
