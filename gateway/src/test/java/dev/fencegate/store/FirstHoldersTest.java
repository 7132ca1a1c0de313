package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The first holder admitted at an unnamed fence's token names it; what that costs, and what it must confirm. */
class FirstHoldersTest {

    private static String schema;
    private static FenceDatabase database;

    @BeforeAll
    static void openDatabase() {
        schema = TestPostgres.newSchema(FirstHoldersTest.class.getSimpleName());
        database = FenceDatabase.open(TestPostgres.config(schema));
        database.migrate();
    }

    @AfterAll
    static void closeDatabase() {
        if (database != null) {
            database.close();
        }
    }

    /**
     * Another session names the fence between this batch's snapshot and its naming, so the claim is
     * judged again with a read made after the batch's commit, and admitted on it. With synchronous
     * standbys named, a claim admitted on a read waits for a commit after that read to come back
     * confirmed: the other session's naming may be on the primary only.
     */
    @Test
    void aClaimAdmittedOnTheReadNamingMakesAgainWaitsForACommitAfterIt() throws Exception {
        UUID instance = UUID.randomUUID();
        PostgresFenceStore store = new PostgresFenceStore(database.dataSource(), instance, () -> true);
        ResourceKey unnamed = new ResourceKey("/b/unnamed-" + UUID.randomUUID());
        assertThat(store.admit(new FenceClaim(unnamed, new FencingToken(7), Optional.empty()))).isInstanceOf(FenceDecision.Admitted.class);
        long confirmationsBefore = confirmations(instance);

        DatabaseConfig config = TestPostgres.config(schema);
        try (Connection other = DriverManager.getConnection(config.url(), config.user(), config.password())) {
            other.setAutoCommit(false);
            try (Statement naming = other.createStatement()) {
                naming.execute("SET search_path = " + schema);
                naming.execute("SELECT set_config('fencegate.gateway', mark, false) FROM gateway_mark");
                naming.executeUpdate("UPDATE fence SET holder = 'x', updated_at = now() WHERE resource = '" + unnamed.value()
                        + "' AND holder IS NULL");
            }
            // Committed while this batch's naming waits for the row: the batch's snapshot saw no holder.
            CompletableFuture<Void> commitSoon = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(700);
                    other.commit();
                } catch (InterruptedException | SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            List<FenceDecision> decisions = store.admitAll(List.of(
                    new FenceClaim(new ResourceKey("/b/new-" + UUID.randomUUID()), new FencingToken(1), Optional.of(new Holder("y"))),
                    new FenceClaim(unnamed, new FencingToken(7), Optional.of(new Holder("x")))));
            commitSoon.join();
            assertThat(decisions.get(1)).isInstanceOf(FenceDecision.Admitted.class);
        }

        assertThat(confirmations(instance)).as("a confirming commit after the read the claim was admitted on")
                .isGreaterThan(confirmationsBefore);
    }

    /** This instance's confirmation row changes with each confirming commit: counted by its xmin. */
    private static long confirmations(UUID instance) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT coalesce((SELECT xmin::text::bigint FROM fence_confirmation WHERE instance = ?), 0)")) {
            select.setObject(1, instance);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
