package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceAdmission;
import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.LocalInflight;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fences held between writes, against a real PostgreSQL: a holder writing again at its token is
 * admitted without a store trip, and no fence is held past a raise, whoever made it.
 */
class HeldFencesTest {

    /** Long enough that no registration runs out during a test: only what a test names ends a hold. */
    private static final Duration WINDOW = Duration.ofSeconds(60);
    private static final AtomicInteger RESOURCES = new AtomicInteger();

    private static String schema;
    private static FenceDatabase database;
    private final List<Instance> instances = new ArrayList<>();
    private final ResourceKey key = new ResourceKey("/held/r" + RESOURCES.incrementAndGet());

    @BeforeAll
    static void openDatabase() {
        schema = TestPostgres.newSchema(HeldFencesTest.class.getSimpleName());
        database = FenceDatabase.open(TestPostgres.config(schema));
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
        instances.forEach(Instance::close);
    }

    @Test
    void aHolderWritingAgainWithItsTokenIsAdmittedWithoutAStoreTrip() {
        Instance a = instance(WINDOW, 100, true);
        a.holdAt(claim(5));

        int tripsBefore = a.trips.get();
        for (int i = 0; i < 50; i++) {
            assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        }
        assertThat(a.trips.get()).isEqualTo(tripsBefore);
    }

    @Test
    void aHeldFenceStillRefusesAnotherHolderAtTheSameToken() {
        Instance a = instance(WINDOW, 100, true);
        a.holdAt(claim(5, "worker-a"));

        assertThat(a.writeAndFinish(claim(5, "worker-b"))).isInstanceOf(FenceDecision.Reused.class);
        assertThat(a.writeAndFinish(claim(4, "worker-b"))).isInstanceOf(FenceDecision.Stale.class);
    }

    @Test
    void aRaiseOnAnotherInstanceEndsTheHoldBeforeItsWriteGoesAhead() throws Exception {
        Instance a = instance(WINDOW, 100, true);
        Instance b = instance(WINDOW, 100, true);
        a.holdAt(claim(5));
        FenceClaim slow = claim(5);
        assertThat(a.write(slow)).isInstanceOf(FenceDecision.Admitted.class); // still on its way to the store

        // B's raise waits behind A's registration, and tells A.
        assertThat(b.write(claim(6))).isInstanceOf(FenceDecision.Draining.class);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class));

        a.finish(slow);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            a.registrations.reconcile();
            assertThat(b.write(claim(6))).isInstanceOf(FenceDecision.Admitted.class);
        });
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
    }

    @Test
    void aRaiseWaitingOnThisInstancesOwnLowerWriteEndsTheHold() throws Exception {
        Instance a = instance(WINDOW, 100, true);
        a.holdAt(claim(5));
        FenceClaim slow = claim(5);
        assertThat(a.write(slow)).isInstanceOf(FenceDecision.Admitted.class);

        // The raise commits, then waits for the write at 5 still on its way.
        assertThat(a.write(claim(6))).isInstanceOf(FenceDecision.Draining.class);

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        a.finish(slow);
    }

    @Test
    void aRaiseWaitingOnAnotherInstancesLowerWriteEndsTheHold() throws Exception {
        Instance a = instance(WINDOW, 100, true);
        Instance b = instance(WINDOW, 100, true);
        a.holdAt(claim(5));
        FenceClaim slow = claim(5);
        assertThat(b.write(slow)).isInstanceOf(FenceDecision.Admitted.class); // B's write at 5 is on its way

        assertThat(a.write(claim(6))).isInstanceOf(FenceDecision.Draining.class);

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        b.finish(slow);
    }

    @Test
    void aFenceRaisedOutsideTheGatewaysEndsTheHold() throws SQLException {
        Instance a = instance(WINDOW, 100, true);
        a.holdAt(claim(5));

        LocalPostgres server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             PreparedStatement raise = connection.prepareStatement("UPDATE " + schema + ".fence SET token = 9 WHERE resource = ?")) {
            raise.setString(1, key.value());
            assertThat(raise.executeUpdate()).isEqualTo(1);
        }

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class));
    }

    @Test
    void aRaiseOnThisInstanceEndsTheHoldEvenWhenItsMemoryOfTheRaiseIsGone() {
        // Room to remember one resource only: another resource's write pushes the raise out.
        Instance a = instance(WINDOW, 1, true);
        a.holdAt(claim(5));

        assertThat(a.writeAndFinish(claim(6))).isInstanceOf(FenceDecision.Admitted.class);
        a.writeAndFinish(new FenceClaim(new ResourceKey(key.value() + "-other"), new FencingToken(1), Optional.empty()));

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
    }

    @Test
    void noFenceIsHeldWithoutAListenerToHearOfRaises() {
        Instance a = instance(WINDOW, 100, false);
        a.writeAndFinish(claim(5));

        int tripsBefore = a.trips.get();
        for (int i = 0; i < 10; i++) {
            assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        }
        assertThat(a.trips.get() - tripsBefore).isEqualTo(10);
    }

    @Test
    void aFenceIsHeldNoLongerThanTheListenerIsConnected() {
        Instance a = instance(WINDOW, 100, true);
        a.holdAt(claim(5));

        a.listener.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            int before = a.trips.get();
            a.writeAndFinish(claim(5));
            return a.trips.get() > before;
        });
        int tripsBefore = a.trips.get();
        for (int i = 0; i < 10; i++) {
            a.writeAndFinish(claim(5));
        }
        assertThat(a.trips.get() - tripsBefore).isEqualTo(10);
    }

    @Test
    void aFenceIsHeldNoLongerThanTheRegistrationCoversAWholeWrite() throws InterruptedException {
        Duration window = Duration.ofMillis(300);
        Instance a = instance(window, 100, true);
        a.holdAt(claim(5));

        // A registration lasts two windows; past the first, a write could outlive it, so the store is asked.
        int tripsBefore = a.trips.get();
        TimeUnit.MILLISECONDS.sleep(window.toMillis() + 100);
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).isGreaterThan(tripsBefore);
    }

    @Test
    void aRegistrationStillWrittenUnderIsRenewedAheadSoItsHoldLasts() throws InterruptedException {
        Duration window = Duration.ofSeconds(2);
        Instance a = instance(window, Duration.ofSeconds(5), 100, true);
        a.holdAt(claim(5));

        TimeUnit.MILLISECONDS.sleep(1_200);
        a.registrations.reconcile(); // less than a window and a half left: renewed here, off the write path
        TimeUnit.MILLISECONDS.sleep(1_200); // the first row would now have less than a window left

        int tripsBefore = a.trips.get();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).isEqualTo(tripsBefore);
    }

    @Test
    void aHoldEndsWithTheRegistrationItStoodOn() throws InterruptedException {
        Instance a = instance(WINDOW, Duration.ofMillis(50), 100, true);
        Instance b = instance(WINDOW, 100, true);
        a.holdAt(claim(5));
        TimeUnit.MILLISECONDS.sleep(100);
        a.registrations.reconcile(); // idle: A withdraws its row
        // With no row of A's to wait for, B raises at once and nobody needs telling.
        assertThat(b.writeAndFinish(claim(6))).isInstanceOf(FenceDecision.Admitted.class);

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
    }

    private FenceClaim claim(long token) {
        return new FenceClaim(key, new FencingToken(token), Optional.empty());
    }

    private FenceClaim claim(long token, String holder) {
        return new FenceClaim(key, new FencingToken(token), Optional.of(new Holder(holder)));
    }

    private Instance instance(Duration window, int remembered, boolean listening) {
        return instance(window, Duration.ofSeconds(2), remembered, listening);
    }

    private Instance instance(Duration window, Duration idleRelease, int remembered, boolean listening) {
        Instance instance = new Instance(window, idleRelease, remembered, listening);
        instances.add(instance);
        return instance;
    }

    /** One gateway's fence side, wired as the gateway wires it, with its store trips counted. */
    private static final class Instance implements AutoCloseable {
        private final AtomicInteger trips = new AtomicInteger();
        private final LocalInflight local = new LocalInflight();
        private final PostgresInflightRegistrations registrations;
        private final InflightListener listener;
        private final FenceChecker checker;

        Instance(Duration window, Duration idleRelease, int remembered, boolean listening) {
            UUID id = UUID.randomUUID();
            registrations = new PostgresInflightRegistrations(database.dataSource(), id, local, window, idleRelease);
            PostgresFenceStore postgres = new PostgresFenceStore(database.dataSource(), id);
            FenceStore counted = new FenceStore() {
                @Override
                public FenceDecision admit(FenceClaim claim) {
                    trips.incrementAndGet();
                    return postgres.admit(claim);
                }

                @Override
                public List<FenceDecision> admitAll(List<FenceClaim> claims) {
                    trips.incrementAndGet();
                    return postgres.admitAll(claims);
                }

                @Override
                public Optional<Fence> read(ResourceKey resource) {
                    return postgres.read(resource);
                }
            };
            FenceAdmission admission = new FenceAdmission(counted, registrations, local, new RememberedFences(remembered),
                    claim -> { });
            checker = new FenceChecker(admission, local, 2, 64, Duration.ofSeconds(2), Duration.ofMillis(100),
                    Duration.ofMillis(100), Optional::empty, () -> "test pool");
            listener = listening ? new InflightListener(database.dataSource(), registrations).start() : null;
        }

        /** Writes at {@code claim} until a write at it is admitted from the held fence. */
        void holdAt(FenceClaim claim) {
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                int before = trips.get();
                FenceDecision decision = writeAndFinish(claim);
                return decision instanceof FenceDecision.Admitted && trips.get() == before;
            });
        }

        FenceDecision write(FenceClaim claim) throws InterruptedException, ExecutionException, TimeoutException {
            return checker.check(claim).get(5, TimeUnit.SECONDS);
        }

        void finish(FenceClaim claim) {
            checker.finished(claim, true);
        }

        /** A write that reaches the store and comes back, when admitted; the in-flight registrations are reconciled after. */
        FenceDecision writeAndFinish(FenceClaim claim) {
            try {
                FenceDecision decision = write(claim);
                if (decision instanceof FenceDecision.Admitted) {
                    finish(claim);
                }
                registrations.reconcile();
                return decision;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            if (listener != null) {
                listener.close();
            }
            checker.close();
            registrations.withdrawAllIfIdle();
        }
    }
}
