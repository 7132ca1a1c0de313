package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The window an admitted write is sent within, on a clock the test moves (a pause of the whole
 * process is the clock jumping): it closes before the registration can lapse, follows renewals
 * confirmed in time, and is never reopened by a renewal that came too late or by none.
 * Rows last 8 s (5 s store apply time, 3 s headroom): a write may go out up to 3 s after its row was written.
 */
class SendWindowsTest {

    private static final AtomicInteger RESOURCES = new AtomicInteger();
    private static FenceDatabase database;
    private final FenceInstance.FakeClock clock = new FenceInstance.FakeClock();
    private final List<FenceInstance> instances = new ArrayList<>();
    private final ResourceKey key = new ResourceKey("/windows/r" + RESOURCES.incrementAndGet());

    @BeforeAll
    static void openDatabase() {
        database = FenceDatabase.open(TestPostgres.config(TestPostgres.newSchema(SendWindowsTest.class.getSimpleName())));
        database.migrate();
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
    void aWriteAdmittedOnItsFirstTripClosesBeforeItsRegistrationCanLapse() throws Exception {
        FenceInstance a = instance();
        FenceDecision.Admitted first = admitted(a.write(claim(5)));
        assertThat(first.window().closed()).isFalse();

        clock.advance(Duration.ofMillis(2_900));
        assertThat(first.window().closed()).isFalse();
        clock.advance(Duration.ofMillis(200)); // paused past the last moment it could still land in time
        assertThat(first.window().closed()).isTrue();
        a.finish(first.claim());
    }

    @Test
    void aWriteAdmittedFromAHeldFenceClosesBeforeItsRegistrationCanLapse() throws Exception {
        FenceInstance a = instance();
        a.holdAt(claim(5));
        int trips = a.trips.get();
        FenceDecision.Admitted held = admitted(a.write(claim(5)));
        assertThat(a.trips.get()).as("admitted from memory").isEqualTo(trips);

        clock.advance(Duration.ofSeconds(4));
        assertThat(held.window().closed()).isTrue();
        a.finish(held.claim());
    }

    @Test
    void aRenewalConfirmedInTimeCarriesTheWindowOfWritesStillUnderWay() throws Exception {
        FenceInstance a = instance();
        FenceDecision.Admitted slow = admitted(a.write(claim(5)));

        clock.advance(Duration.ofMillis(1_500));
        a.fences.reconcile(); // still in flight, under two thirds of the headroom left: renewed
        clock.advance(Duration.ofMillis(2_500));
        assertThat(slow.window().closed()).isFalse();
        a.finish(slow.claim());
    }

    @Test
    void whenRenewalsFailAWriteNotYetSentIsNotSent() throws Exception {
        FenceInstance a = instance();
        FenceDecision.Admitted slow = admitted(a.write(claim(5)));

        a.registrationsFail.set(true);
        clock.advance(Duration.ofMillis(1_500));
        a.fences.reconcile();
        clock.advance(Duration.ofMillis(1_600));
        assertThat(slow.window().closed()).isTrue();
        assertThat(a.write(claim(5))).as("no new write without a registration").isInstanceOf(FenceDecision.Unavailable.class);
        a.finish(slow.claim());
    }

    @Test
    void aRenewalAfterTheRowCouldHaveLapsedDoesNotReopenTheWindow() throws Exception {
        FenceInstance a = instance();
        FenceDecision.Admitted paused = admitted(a.write(claim(5)));

        clock.advance(Duration.ofSeconds(9)); // the whole process stopped longer than the row lives
        a.fences.reconcile(); // the renewal thread runs first on waking: the row is written again, as a new lease
        assertThat(paused.window().closed()).isTrue();

        FenceDecision.Admitted fresh = admitted(a.write(claim(5)));
        assertThat(fresh.window().closed()).isFalse();
        a.finish(paused.claim());
        a.finish(fresh.claim());
    }

    private static FenceDecision.Admitted admitted(FenceDecision decision) {
        assertThat(decision).isInstanceOf(FenceDecision.Admitted.class);
        return (FenceDecision.Admitted) decision;
    }

    private FenceInstance instance() {
        FenceInstance instance = new FenceInstance(database, clock, HeldFencesTest.TIMING, 100, true);
        instances.add(instance);
        return instance;
    }

    private FenceClaim claim(long token) {
        return new FenceClaim(key, new FencingToken(token), Optional.empty());
    }
}
