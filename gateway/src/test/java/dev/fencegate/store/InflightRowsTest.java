package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.RegistrationRows;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sweep's withdrawals and narrowings go out as one statement each, in one commit: each still
 * touches only this instance's row, and only while the row has the generation the sweep saw, so a
 * row a write has just renewed is never removed or narrowed under it.
 */
class InflightRowsTest {

    private static FenceDatabase database;

    @BeforeAll
    static void openDatabase() {
        database = TestPostgres.migrated(InflightRowsTest.class.getSimpleName());
    }

    @AfterAll
    static void closeDatabase() {
        if (database != null) {
            database.close();
        }
    }

    @Test
    void aSweepWithdrawsAndNarrowsOnlyRowsStillAtTheGenerationItSaw() throws SQLException {
        UUID id = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        PostgresInflightRegistrations mine = new PostgresInflightRegistrations(database.dataSource(), id);
        String batch = "/tidy/" + UUID.randomUUID();
        ResourceKey idle = new ResourceKey(batch + "/idle");
        ResourceKey renewed = new ResourceKey(batch + "/renewed");
        ResourceKey narrowed = new ResourceKey(batch + "/narrowed");
        ResourceKey renewedNarrowed = new ResourceKey(batch + "/renewed-narrowed");
        Map<ResourceKey, Long> rows = new TreeMap<>(Comparator.comparing(ResourceKey::value));
        rows.put(idle, 3L);
        rows.put(renewed, 3L);
        rows.put(narrowed, 3L);
        rows.put(renewedNarrowed, 3L);
        Map<ResourceKey, Long> seen = new TreeMap<>(Comparator.comparing(ResourceKey::value));
        mine.write(rows, Duration.ofMinutes(1)).forEach(row -> seen.put(row.resource(), row.generation()));
        // Renewed after the sweep looked: a later generation now.
        mine.write(Map.of(renewed, 3L), Duration.ofMinutes(1));
        mine.write(Map.of(renewedNarrowed, 3L), Duration.ofMinutes(1));
        new PostgresInflightRegistrations(database.dataSource(), other).write(Map.of(idle, 2L), Duration.ofMinutes(1));

        mine.tidy(List.of(new RegistrationRows.Change(idle, 3, seen.get(idle)), new RegistrationRows.Change(renewed, 3, seen.get(renewed))),
                List.of(new RegistrationRows.Change(narrowed, 5, seen.get(narrowed)),
                        new RegistrationRows.Change(renewedNarrowed, 5, seen.get(renewedNarrowed))));

        assertThat(minTokens(id, batch)).isEqualTo(Map.of(renewed.value(), 3L, narrowed.value(), 5L, renewedNarrowed.value(), 3L));
        assertThat(minTokens(other, batch)).isEqualTo(Map.of(idle.value(), 2L));
    }

    /**
     * A sweep skips the rows another transaction holds (a batch writing them again) and answers the
     * withdrawals it did not make: it never waits on a row, so it never waits in a cycle with a batch,
     * which locks registration rows and fence rows in an order of its own.
     */
    @Test
    void aSweepSkipsRowsAnotherTransactionHoldsSoItNeverWaitsInACycleWithABatch() throws Exception {
        UUID id = UUID.randomUUID();
        PostgresInflightRegistrations mine = new PostgresInflightRegistrations(database.dataSource(), id);
        String batch = "/tidy/" + UUID.randomUUID();
        ResourceKey held = new ResourceKey(batch + "/held");
        ResourceKey free = new ResourceKey(batch + "/free");
        ResourceKey heldNarrowed = new ResourceKey(batch + "/held-narrowed");
        ResourceKey freeNarrowed = new ResourceKey(batch + "/free-narrowed");
        Map<ResourceKey, Long> rows = new TreeMap<>(Comparator.comparing(ResourceKey::value));
        for (ResourceKey resource : List.of(held, free, heldNarrowed, freeNarrowed)) {
            rows.put(resource, 3L);
        }
        Map<ResourceKey, Long> seen = new TreeMap<>(Comparator.comparing(ResourceKey::value));
        mine.write(rows, Duration.ofMinutes(1)).forEach(row -> seen.put(row.resource(), row.generation()));
        List<RegistrationRows.Change> withdrawals = List.of(new RegistrationRows.Change(held, 3, seen.get(held)),
                new RegistrationRows.Change(free, 3, seen.get(free)));
        List<RegistrationRows.Change> narrowings = List.of(new RegistrationRows.Change(heldNarrowed, 5, seen.get(heldNarrowed)),
                new RegistrationRows.Change(freeNarrowed, 5, seen.get(freeNarrowed)));

        ExecutorService sweeper = Executors.newSingleThreadExecutor();
        try (Connection other = database.dataSource().getConnection()) {
            other.setAutoCommit(false);
            try (PreparedStatement lock = other.prepareStatement(
                    "SELECT 1 FROM fence_inflight WHERE instance = ? AND resource IN (?, ?) FOR UPDATE")) {
                lock.setObject(1, id);
                lock.setString(2, held.value());
                lock.setString(3, heldNarrowed.value());
                lock.executeQuery().close();
            }
            Future<?> sweep = sweeper.submit(() -> mine.tidy(withdrawals, narrowings));
            // Waiting on the held rows, it would not return until the other transaction ends.
            sweep.get(10, TimeUnit.SECONDS);
            assertThat(minTokens(id, batch)).as("the held rows are left as they were, the free ones withdrawn and narrowed")
                    .isEqualTo(Map.of(held.value(), 3L, heldNarrowed.value(), 3L, freeNarrowed.value(), 5L));
            other.rollback();
        } finally {
            sweeper.shutdownNow();
        }
        mine.tidy(withdrawals, narrowings);
        assertThat(minTokens(id, batch)).as("a later sweep").isEqualTo(Map.of(heldNarrowed.value(), 5L, freeNarrowed.value(), 5L));
    }

    private static Map<String, Long> minTokens(UUID instance, String prefix) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT resource, min_token FROM fence_inflight WHERE instance = ? AND resource LIKE ? || '%'")) {
            select.setObject(1, instance);
            select.setString(2, prefix);
            Map<String, Long> found = new TreeMap<>();
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    found.put(row.getString(1), row.getLong(2));
                }
            }
            return found;
        }
    }
}
