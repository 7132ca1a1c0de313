package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sweep's withdrawal that runs late, after its row was removed by another instance (as expired,
 * once a raise gave this instance time to hear of it) and written anew by this instance's next
 * claim. Withdrawals touch a row only while it has the generation the sweep saw; generations
 * counted per row from 1 repeated, and the withdrawal removed the new row while a write under it
 * was in flight, so another instance's raise went ahead at once.
 */
class RegistrationGenerationsTest {

    private static FenceDatabase database;
    private final FenceInstance.FakeClock clock = new FenceInstance.FakeClock();
    private final List<FenceInstance> instances = new ArrayList<>();
    private final ResourceKey key = new ResourceKey("/registration-generations/r1");

    @BeforeAll
    static void openDatabase() {
        database = TestPostgres.migrated(RegistrationGenerationsTest.class.getSimpleName());
    }

    @AfterAll
    static void closeDatabase() {
        if (database != null) {
            database.close();
        }
    }

    @AfterEach
    void closeInstances() {
        instances.forEach(FenceInstance::close);
    }

    @Test
    void aWithdrawalRunLateDoesNotRemoveTheRowWrittenAnewAfterItsOwnWasRemoved() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(generation(a)).isNotNull();

        // A's row expires unrenewed (A cut off, or stopped) and B's raise removes it after its grace
        // (FORGET_EXPIRED; its notice is heard by A before A writes again, or not at all).
        sql("DELETE FROM fence_inflight WHERE instance = '" + a.id + "'");

        // A's sweep plans the withdrawal of its idle lease but its statement runs late (a pool
        // starved after the faults, or the renewal statement before it slow): meanwhile A's next
        // write registers a new row.
        clock.advance(Duration.ofMillis(1_100));
        AtomicReference<FenceDecision> inFlight = new AtomicReference<>();
        a.beforeTidy.set(() -> {
            try {
                inFlight.set(a.write(claim(5)));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        a.fences.reconcile();

        assertThat(inFlight.get()).as("A admits its write at 5 on a fresh row").isInstanceOf(FenceDecision.Admitted.class);
        assertThat(((FenceDecision.Admitted) inFlight.get()).window().closed()).isFalse();
        assertThat(generation(a)).as("A's new row, with its write at 5 in flight").isNotNull();
        assertThat(b.write(claim(6))).as("B's raise to 6 while A's write at 5 is in flight").isInstanceOf(FenceDecision.Draining.class);
    }

    private FenceInstance instance() {
        FenceInstance instance = new FenceInstance(database, clock, HeldFencesTest.TIMING, 100, true);
        instances.add(instance);
        return instance;
    }

    private FenceClaim claim(long token) {
        return new FenceClaim(key, new FencingToken(token), Optional.empty());
    }

    private Long generation(FenceInstance instance) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT generation FROM fence_inflight WHERE instance = ? AND resource = ?")) {
            select.setObject(1, instance.id);
            select.setString(2, key.value());
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : null;
            }
        }
    }

    /** On a gateway's own session (marked), so the change is not announced, as FORGET_EXPIRED's notice heard early. */
    private static void sql(String statement) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement run = connection.prepareStatement(statement)) {
            run.execute();
        }
    }
}
