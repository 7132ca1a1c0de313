package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A raise the database acknowledges without making it (here a trigger added to the fence table
 * that drops every row written) admits nothing: a claim is admitted on its own raise only when
 * the fence read after the commit is at its token.
 */
class UnwrittenRaiseTest {

    private static FenceDatabase database;
    private static PostgresFenceStore store;

    @BeforeAll
    static void open() throws Exception {
        database = TestPostgres.migrated(UnwrittenRaiseTest.class.getSimpleName());
        store = new PostgresFenceStore(database.dataSource());
        assertThat(store.admit(claim("/bucket/y", 3))).isInstanceOf(FenceDecision.Admitted.class);
        try (Connection connection = database.dataSource().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE FUNCTION drop_every_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$");
            statement.execute("CREATE TRIGGER drop_every_row BEFORE INSERT OR UPDATE ON fence FOR EACH ROW EXECUTE FUNCTION drop_every_row()");
        }
    }

    @AfterAll
    static void close() {
        if (database != null) {
            database.close();
        }
    }

    @Test
    void aNewFenceTheDatabaseDidNotWriteAdmitsNothing() {
        assertThat(store.admitAll(List.of(claim("/bucket/x", 5))).get(0)).isInstanceOf(FenceDecision.Unavailable.class);
        assertThat(store.read(new ResourceKey("/bucket/x"))).isEmpty();
    }

    @Test
    void aRaiseTheDatabaseDidNotMakeAdmitsNothingSoNoLowerTokenFollowsAnAdmittedHigherOne() {
        PostgresFenceStore other = new PostgresFenceStore(database.dataSource(), UUID.randomUUID());
        FenceDecision higher = store.admitAll(List.of(claim("/bucket/y", 11))).get(0);
        FenceDecision lower = other.admitAll(List.of(claim("/bucket/y", 10))).get(0);
        assertThat(higher).isInstanceOf(FenceDecision.Unavailable.class);
        assertThat(lower).isInstanceOf(FenceDecision.Unavailable.class);
        assertThat(store.read(new ResourceKey("/bucket/y")).orElseThrow().token()).isEqualTo(new FencingToken(3));
    }

    @Test
    void inABatchNoClaimIsAdmittedOnARaiseTheDatabaseDidNotMake() {
        List<FenceDecision> decisions = store.admitAll(List.of(claim("/bucket/y", 9), claim("/bucket/z", 2), claim("/bucket/y", 3)));
        assertThat(decisions.subList(0, 2)).allMatch(FenceDecision.Unavailable.class::isInstance);
        assertThat(decisions.get(2)).as("a claim at the fence the database holds").isInstanceOf(FenceDecision.Admitted.class);
    }

    private static FenceClaim claim(String resource, long token) {
        return new FenceClaim(new ResourceKey(resource), new FencingToken(token), Optional.empty());
    }
}
