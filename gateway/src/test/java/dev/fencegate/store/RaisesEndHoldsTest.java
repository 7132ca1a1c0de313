package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencegate.fence.FenceAdmission;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.http.ResourcePaths;
import dev.fencegate.testing.Proxies;
import dev.fencegate.testing.TestPostgres;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every way a fence goes up ends every instance's hold of the old value, the raising instance's
 * included, while the holder keeps writing: a write, the admin port, the regression guard, SQL by
 * hand; and a registration row that is gone or expired early does not let two instances admit
 * from memory side by side.
 */
class RaisesEndHoldsTest {

    private static final AtomicInteger RESOURCES = new AtomicInteger();
    private static String schema;
    private static FenceDatabase database;
    private final FenceInstance.FakeClock clock = new FenceInstance.FakeClock();
    private final List<FenceInstance> instances = new ArrayList<>();
    private final ResourceKey key = new ResourceKey("/raises/r" + RESOURCES.incrementAndGet());

    @BeforeAll
    static void openDatabase() {
        schema = TestPostgres.newSchema(RaisesEndHoldsTest.class.getSimpleName());
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
        instances.forEach(FenceInstance::close);
    }

    @Test
    void anAdminRaiseOnTheHoldingInstanceEndsItsHoldAtOnce() {
        FenceInstance a = instance();
        a.holdAt(claim(5));

        assertThat(a.admission.raise(key, new FencingToken(6))).isInstanceOf(FenceDecision.Admitted.class);

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
    }

    @Test
    void anAdminRaiseOnAnotherInstanceEndsTheHold() {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));

        b.admission.raise(key, new FencingToken(6));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class));
    }

    /**
     * An admin raise commits and its answer is lost (the connection breaks), or the read after its
     * commit is (the connection is ended before it): nobody was told of it, and the holder below
     * would go on admitting from memory under a fence that reads higher. It is asked again, finds
     * the fence at its token and announces it, and the hold ends.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anAdminRaiseWhoseAnswerWasLostIsAskedAgainAndEndsTheHold(boolean readAfterCommitLost) {
        FenceInstance a = instance();
        a.holdAt(claim(5));
        AtomicBoolean armed = new AtomicBoolean(true);
        UUID other = UUID.randomUUID();
        DataSource losing = losingOnce(readAfterCommitLost, armed);
        FenceAdmission raising = new FenceAdmission(new PostgresFenceStore(losing, other),
                new InstanceFences(new PostgresInflightRegistrations(losing, other), HeldFencesTest.TIMING, clock::now),
                new RememberedFences(100), regressed -> { });

        FenceDecision raised = raising.raise(key, new FencingToken(6));

        assertThat(armed.get()).as("the first raise's answer was lost").isFalse();
        assertThat(raised).isInstanceOfAny(FenceDecision.Admitted.class, FenceDecision.Draining.class);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class));
    }

    /**
     * A write's raise on another instance commits and its answer is lost, or the read after its
     * commit is: the write gets 503 and nobody was told of the raise, so the holder below would go
     * on admitting from memory under a fence that reads higher, until a write at the new token
     * came. The claims are asked again, as an admin raise is, and the hold ends; the sweep that
     * writes the batch's rows in doubt again announces nothing by itself.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aWritesRaiseWhoseAnswerWasLostIsAskedAgainAndEndsTheHold(boolean readAfterCommitLost) throws SQLException {
        FenceInstance a = instance();
        a.holdAt(claim(5));
        AtomicBoolean armed = new AtomicBoolean(true);
        UUID other = UUID.randomUUID();
        DataSource losing = losingOnce(readAfterCommitLost, armed);
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(losing, other), HeldFencesTest.TIMING, clock::now);
        FenceAdmission raising = new FenceAdmission(new PostgresFenceStore(losing, other), fences, new RememberedFences(100),
                regressed -> { });

        fences.enter(claim(6));
        assertThat(raising.attempt(claim(6))).isInstanceOf(FenceDecision.Unavailable.class);
        fences.exit(claim(6));
        fences.reconcile();

        assertThat(armed.get()).as("the raise's answer was lost").isFalse();
        assertThat(new PostgresFenceStore(database.dataSource()).read(key).orElseThrow().token().value()).isEqualTo(6);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class));
    }

    /** Connections whose first fence raise, once {@code armed}, commits and then loses the read after it or its answer. */
    private static DataSource losingOnce(boolean readAfterCommitLost, AtomicBoolean armed) {
        return readAfterCommitLost ? readAfterCommitLostOnce(database.dataSource(), armed) : answerLostOnce(database.dataSource(), armed);
    }

    /** Connections whose first fence raise, once {@code armed}, commits and then has its connection ended before the read after it. */
    private static DataSource readAfterCommitLostOnce(DataSource real, AtomicBoolean armed) {
        Set<Connection> raisedOn = ConcurrentHashMap.newKeySet();
        return Proxies.connectionsThrough(real, (connection, method, args) -> {
            if (method.getName().equals("prepareStatement") && raisedOn.contains(connection) && armed.getAndSet(false)) {
                int pid;
                try (Statement own = connection.createStatement(); ResultSet row = own.executeQuery("SELECT pg_backend_pid()")) {
                    row.next();
                    pid = row.getInt(1);
                }
                try (Connection killer = real.getConnection(); Statement kill = killer.createStatement()) {
                    kill.execute("SELECT pg_terminate_backend(" + pid + ")");
                }
            }
            if (method.getName().equals("prepareStatement") && armed.get() && ((String) args[0]).contains("INSERT INTO fence")) {
                raisedOn.add(connection);
            }
            return Proxies.invoke(method, connection, args);
        });
    }

    /** Connections whose first fence raise, once {@code armed}, commits and then loses its answer. */
    private static DataSource answerLostOnce(DataSource real, AtomicBoolean armed) {
        return Proxies.connectionsThrough(real, (connection, method, args) -> {
            Object prepared = Proxies.invoke(method, connection, args);
            if (!method.getName().equals("prepareStatement") || !((String) args[0]).contains("INSERT INTO fence")) {
                return prepared;
            }
            PreparedStatement statement = (PreparedStatement) prepared;
            return Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(), new Class<?>[] {PreparedStatement.class},
                    (p, sm, sargs) -> {
                        Object done = Proxies.invoke(sm, statement, sargs);
                        if (sm.getName().equals("executeQuery") && armed.getAndSet(false)) {
                            connection.abort(Runnable::run);
                            throw new SQLException("An I/O error occurred while sending to the backend.", "08006");
                        }
                        return done;
                    });
        });
    }

    @Test
    void theRegressionGuardsRaiseEndsTheHold() throws SQLException {
        FenceInstance a = instance();
        FenceInstance b = instance();
        assertThat(b.writeAndFinish(claim(7))).isInstanceOf(FenceDecision.Admitted.class);
        // The database loses the fence (a restore): it is back at 5, and nobody is told.
        sql("ALTER TABLE " + schema + ".fence DISABLE TRIGGER ALL",
                "UPDATE " + schema + ".fence SET token = 5 WHERE resource = '" + key.value() + "'",
                "ALTER TABLE " + schema + ".fence ENABLE TRIGGER ALL");
        b.fences.reconcile();
        a.holdAt(claim(5));

        // A claim at 5 that reached B's store check (past the remembered-token shortcut, as in a race):
        // B remembers 7, refuses 5 and raises the fence back, and A hears of it.
        b.fences.enter(claim(5));
        assertThat(b.admission.attempt(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        b.fences.exit(claim(5));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class));
    }

    /**
     * A raise whose notice this instance never heard (lost on its way, as through a pooler that
     * hands the listening session's notices to nobody) still ends the hold as soon as one of its
     * own claims reads the fence above it.
     */
    @Test
    void aFenceReadAboveTheHeldValueEndsTheHold() throws SQLException {
        FenceInstance a = instance();
        a.holdAt(claim(5));
        sql("ALTER TABLE " + schema + ".fence DISABLE TRIGGER ALL",
                "UPDATE " + schema + ".fence SET token = 9 WHERE resource = '" + key.value() + "'",
                "ALTER TABLE " + schema + ".fence ENABLE TRIGGER ALL");

        assertThat(a.writeAndFinish(claim(6))).isInstanceOf(FenceDecision.Stale.class);

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
    }

    /**
     * Anyone who knows the fence's token may send it with another holder: refused as reused by the
     * database, that claim must not cost the holder its hold.
     */
    @Test
    void aReusedClaimAtTheHeldFenceLeavesTheHold() {
        FenceInstance a = instance();
        a.holdAt(claim(5, "a"));

        assertThat(a.writeAndFinish(claim(5, "b"))).isInstanceOf(FenceDecision.Reused.class);

        int trips = a.trips.get();
        assertThat(a.writeAndFinish(claim(5, "a"))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).as("admitted at the held fence, without a trip to the store").isEqualTo(trips);
    }

    @Test
    void aRaiseBySqlEndsTheHoldAndClosesTheHoldersUnsentWrites() throws Exception {
        FenceInstance a = instance();
        a.holdAt(claim(5));
        FenceDecision.Admitted unsent = (FenceDecision.Admitted) a.write(claim(5));
        assertThat(unsent.window().closed()).isFalse();

        sql("UPDATE " + schema + ".fence SET token = 9 WHERE resource = '" + key.value() + "'");

        await().atMost(Duration.ofSeconds(5)).until(() -> unsent.window().closed());
        a.finish(unsent.claim());
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        // The notice named no token: writes admitted after it, at the new fence, go out as usual.
        FenceDecision.Admitted atNewFence = (FenceDecision.Admitted) a.write(claim(9));
        assertThat(atNewFence.window().closed()).isFalse();
        a.finish(atNewFence.claim());
    }

    /**
     * A raise another instance announces with its token reaches a holder whose write below it was
     * admitted from the held fence and has not fully gone out: that write's window closes, so what
     * is left of it is not sent; refusing the holder's later writes from memory is not enough.
     */
    @Test
    void aRaiseHeardFromAnotherInstanceStopsTheHoldersWritesNotYetSent() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        int trips = a.trips.get();
        FenceDecision.Admitted unsent = (FenceDecision.Admitted) a.write(claim(5));
        assertThat(a.trips.get()).as("admitted from the held fence").isEqualTo(trips);
        assertThat(unsent.window().closed()).isFalse();

        // B's raise to 6 commits, finds A registered below it, waits for A and tells it.
        assertThat(b.write(claim(6))).isInstanceOf(FenceDecision.Draining.class);

        await("the window of A's unsent write at 5 closed by the raise to 6 it heard").atMost(Duration.ofSeconds(5))
                .until(() -> unsent.window().closed());
        a.finish(unsent.claim());
    }

    @Test
    void aDeletedRegistrationRowDoesNotLetTheHolderGoOnAdmittingFromMemory() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        FenceDecision.Admitted unsent = (FenceDecision.Admitted) a.write(claim(5));
        sql("DELETE FROM " + schema + ".fence_inflight WHERE instance = '" + a.id + "'");

        // Nothing for B to wait on: it raises at once, and says so.
        assertThat(b.writeAndFinish(claim(6))).isInstanceOf(FenceDecision.Admitted.class);

        await().atMost(Duration.ofSeconds(5)).until(() -> unsent.window().closed());
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        a.finish(unsent.claim());
    }

    /**
     * Raises are announced only to registered instances, so a registration removed by hand is
     * announced as it goes: its instance stops holding the fence and stops sending what it
     * admitted under it, before any raise, and registers again before its next write, so a raise
     * on another instance finds it and waits.
     */
    @Test
    void aRegistrationDeletedByHandIsAnnouncedSoItsHolderStopsBeforeAnyRaise() throws Exception {
        holderStopsBeforeAnyRaiseWhenItsRowIsChangedBy("DELETE FROM " + schema + ".fence_inflight WHERE instance = '%s'");
    }

    private void holderStopsBeforeAnyRaiseWhenItsRowIsChangedBy(String sqlForInstance) throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        FenceDecision.Admitted unsent = (FenceDecision.Admitted) a.write(claim(5));

        sql(sqlForInstance.formatted(a.id));

        await().atMost(Duration.ofSeconds(5)).until(() -> unsent.window().closed());
        a.finish(unsent.claim());
        int tripsBefore = a.trips.get();
        FenceDecision.Admitted next = (FenceDecision.Admitted) a.write(claim(5));
        assertThat(a.trips.get()).as("admitted from the store, not from memory").isGreaterThan(tripsBefore);
        assertThat(b.write(claim(6))).as("A's write at 5 is in flight under a row B can see")
                .isInstanceOf(FenceDecision.Draining.class);
        a.finish(next.claim());
    }

    /**
     * The store admitted A's write at 5, and before A settled the answer (its fence-check thread
     * paused: GC, preemption) A's row was deleted by hand, A heard it, and B raised to 6 without
     * waiting for A, since it found no row of A's. The deletion heard meanwhile sends the claim
     * round again: it registers again, and its fence is read again.
     */
    @Test
    void aWriteJudgedBeforeItsRowWasDeletedAndSettledAfterIsNotSent() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        FenceDecision.Admitted earlier = (FenceDecision.Admitted) a.write(claim(4));
        a.afterStoreAnswered.set(() -> {
            try {
                sql("DELETE FROM " + schema + ".fence_inflight WHERE instance = '" + a.id + "'");
                // A heard it: the write it admitted earlier stops going out (and is let go).
                await().atMost(Duration.ofSeconds(5)).until(() -> earlier.window().closed());
                a.finish(earlier.claim());
                assertThat(b.writeAndFinish(claim(6))).as("B finds no row of A's below 6").isInstanceOf(FenceDecision.Admitted.class);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        FenceDecision late = a.write(claim(5));

        assertThat(late).as("A's write at 5, judged before its row went, must not go out after B's 6")
                .isNotInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.writeAndFinish(claim(5))).as("judged again, after registering again").isInstanceOf(FenceDecision.Stale.class);
    }

    /**
     * A registration row updated by hand (its lowest token moved above the next raise) hides its
     * instance from that raise as a deleted one does; it is announced the same way, so its
     * instance stops sending what it admitted under it, and registers again before its next write.
     */
    @Test
    void aRegistrationUpdatedByHandIsAnnouncedSoItsHolderStopsBeforeAnyRaise() throws Exception {
        holderStopsBeforeAnyRaiseWhenItsRowIsChangedBy("UPDATE " + schema + ".fence_inflight SET min_token = 1000 WHERE instance = '%s'");
    }

    /**
     * A writer that keeps writing below a raise its instance heard of is refused there without
     * registering again: a fresh registration below the raise would hold it back once more.
     */
    @Test
    void aWriterBelowAHeardRaiseDoesNotHoldTheRaiseBackByRegisteringAgain() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));

        assertThat(b.write(claim(6))).as("A holds 5").isInstanceOf(FenceDecision.Draining.class);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(a.write(claim(5))).isInstanceOf(FenceDecision.Stale.class));
        a.fences.reconcileWanted(); // asked to, A lets its idle row go
        int tripsBefore = a.trips.get();
        assertThat(a.write(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        assertThat(a.trips.get()).as("refused from what A heard").isEqualTo(tripsBefore);

        assertThat(b.write(claim(6))).isInstanceOf(FenceDecision.Admitted.class);
        b.finish(claim(6));
    }

    @Test
    void aRaisePastARowThatExpiredEarlyWaitsUntilItsInstanceHeard() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        // The database's clock jumps ahead: A's row has expired, though A's clock says it has seconds to go.
        sql("UPDATE " + schema + ".fence_inflight SET until = now() - interval '1 second' WHERE instance = '" + a.id + "'");

        assertThat(b.write(claim(6))).as("A may still hold the fence").isInstanceOf(FenceDecision.Draining.class);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(a.write(claim(5))).isInstanceOf(FenceDecision.Stale.class));
        assertThat(b.write(claim(6))).as("still within the grace").isInstanceOf(FenceDecision.Draining.class);

        clock.advance(Duration.ofMillis(1_300));
        FenceDecision raised = b.write(claim(6));
        assertThat(raised).isInstanceOf(FenceDecision.Admitted.class);
        // The removal is told to A alone: B's own write, admitted by that raise, still goes out.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .until(() -> !((FenceDecision.Admitted) raised).window().closed());
        b.finish(claim(6));

        // B removed A's row and said so: A's next write registers again, so the next raise finds it.
        FenceInstance c = instance();
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            if (a.write(claim(7)) instanceof FenceDecision.Admitted) {
                return true;
            }
            b.fences.reconcileWanted(); // B, asked to, lets its idle row at 6 go
            return false;
        });
        assertThat(c.write(claim(8))).as("A's write at 7 is in flight under a row C can see")
                .isInstanceOf(FenceDecision.Draining.class);
        a.finish(claim(7));
    }

    /**
     * A raise past a row that expired early goes ahead only once that row is gone. Its instance
     * may renew it while the raise waits out the grace (the database clock jumped ahead, and the
     * renewal came late): the removal then finds the row live and removes nothing, and the raise
     * waits for it as for any live row, rather than going ahead while a write under it may still
     * be on its way to the store.
     */
    @Test
    void aRaisePastARowThatExpiredEarlyWaitsForItWhenItsInstanceRenewsItDuringTheGrace() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        sql("UPDATE " + schema + ".fence_inflight SET until = now() - interval '1 second' WHERE instance = '" + a.id + "'");
        assertThat(b.write(claim(6))).as("A may still hold the fence").isInstanceOf(FenceDecision.Draining.class);
        clock.advance(Duration.ofMillis(1_300));

        var server = TestPostgres.server();
        ExecutorService raising = Executors.newSingleThreadExecutor();
        try (Connection renewal = DriverManager.getConnection(server.url(), server.user(), server.password())) {
            // A's renewal, under way as B's grace ends: it holds the row until it commits.
            renewal.setAutoCommit(false);
            try (Statement statement = renewal.createStatement()) {
                statement.execute("UPDATE " + schema + ".fence_inflight SET until = now() + interval '60 seconds'"
                        + " WHERE instance = '" + a.id + "'");
            }
            Future<FenceDecision> raised = raising.submit(() -> b.write(claim(6)));
            await().atMost(Duration.ofSeconds(5)).until(() -> removalWaitsOnALock(renewal));
            renewal.commit();

            assertThat(raised.get(5, TimeUnit.SECONDS)).as("A's row is live again: B waits for it")
                    .isInstanceOf(FenceDecision.Draining.class);
        } finally {
            raising.shutdownNow();
        }
        assertThat(count("SELECT count(*) FROM " + schema + ".fence_inflight WHERE instance = '" + a.id + "' AND until > now()"))
                .as("A's renewed row stays").isEqualTo(1);
    }

    /**
     * After this instance saw the database's clock step forward, a row found expired may still be
     * live, its instance's renewal late: for a row length from then, a raise past it waits, its
     * grace served or not, and removes nothing; then it goes ahead.
     */
    @Test
    void aRaisePastARowFoundExpiredWaitsARowLengthAfterTheDatabaseClockSteppedForward() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        // B's checks see the database's clock step forward; by that clock A's row has expired, and A's renewal is late.
        b.expiry.steppedForward();
        sql("UPDATE " + schema + ".fence_inflight SET until = now() - interval '1 second' WHERE instance = '" + a.id + "'");

        assertThat(b.write(claim(6))).isInstanceOf(FenceDecision.Draining.class);
        clock.advance(Duration.ofMillis(1_300));
        assertThat(b.write(claim(6))).as("the grace is served, but A's row may be live").isInstanceOf(FenceDecision.Draining.class);
        assertThat(count("SELECT count(*) FROM " + schema + ".fence_inflight WHERE instance = '" + a.id + "'"))
                .as("A's row stays").isEqualTo(1);

        clock.advance(HeldFencesTest.TIMING.rowLength());
        FenceDecision raised = b.write(claim(6));
        assertThat(raised).as("any row written before the step has ended by now").isInstanceOf(FenceDecision.Admitted.class);
        b.finish(claim(6));
    }

    /**
     * A step of the database's clock just before a raise found a row expired is seen by the first
     * reading of that clock after; while the checks are slow, none may have come by the end of the
     * grace, and the raise waits for one.
     */
    @Test
    void aRaisePastARowFoundExpiredWaitsForAReadingOfTheDatabaseClockThatBeganAfter() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        b.clockReadings.set(false);
        b.expiry.clockRead(clock.now() - 1);
        sql("UPDATE " + schema + ".fence_inflight SET until = now() - interval '1 second' WHERE instance = '" + a.id + "'");

        assertThat(b.write(claim(6))).isInstanceOf(FenceDecision.Draining.class);
        clock.advance(Duration.ofMillis(1_300));
        assertThat(b.write(claim(6))).as("the grace is served, but no reading since could have seen a step")
                .isInstanceOf(FenceDecision.Draining.class);

        b.expiry.clockRead(clock.now());
        FenceDecision raised = b.write(claim(6));
        assertThat(raised).isInstanceOf(FenceDecision.Admitted.class);
        b.finish(claim(6));
    }

    /** Whether a removal of expired registrations is waiting for a row lock held by {@code holder}'s transaction. */
    private static boolean removalWaitsOnALock(Connection holder) throws SQLException {
        try (Statement statement = holder.createStatement();
             var row = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                     + " AND query LIKE '%DELETE FROM fence_inflight%' AND pg_backend_pid() = ANY (pg_blocking_pids(pid))")) {
            row.next();
            return row.getLong(1) > 0;
        }
    }

    private static long count(String query) throws SQLException {
        var server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement statement = connection.createStatement();
             var row = statement.executeQuery(query)) {
            row.next();
            return row.getLong(1);
        }
    }

    /**
     * A named write at an unnamed fence's token, admitted once another instance's expired row was
     * waited out, names the fence as any admission at its token does: the same token from another
     * holder is then refused as reused.
     */
    @Test
    void aHolderAdmittedPastAnExpiredRowNamesTheUnnamedFence() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        // A's row, as if it had a write below 5 in flight when the database clock jumped.
        sql("UPDATE " + schema + ".fence_inflight SET min_token = 4, until = now() - interval '1 second' WHERE instance = '"
                + a.id + "'");
        FenceClaim first = new FenceClaim(key, new FencingToken(5), Optional.of(new Holder("worker-b")));

        assertThat(b.write(first)).as("A may still hold the fence").isInstanceOf(FenceDecision.Draining.class);
        clock.advance(Duration.ofMillis(1_300));
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            FenceDecision decision = b.write(first);
            if (decision instanceof FenceDecision.Admitted) {
                b.finish(first);
                return true;
            }
            return false;
        });

        assertThat(b.postgres.read(key)).hasValueSatisfying(fence -> assertThat(fence.holder()).contains(new Holder("worker-b")));
        assertThat(b.write(new FenceClaim(key, new FencingToken(5), Optional.of(new Holder("worker-c")))))
                .isInstanceOf(FenceDecision.Reused.class);
    }

    /**
     * B and C both waited past a dead instance D's expired row, and C served its grace and removed
     * the row. When B later finds another row expired early (A's, whose instance is alive and holds
     * the fence), it waits a grace of its own first: the one it began for D's row ended with that
     * row, whether B then found nothing expired there itself or only heard of the removal.
     */
    @Test
    void aRaisePastARowThatExpiredEarlyWaitsEvenAfterAnotherInstanceServedAnEarlierGrace() throws Exception {
        for (boolean judgedMeanwhile : new boolean[] {true, false}) {
            ResourceKey resource = new ResourceKey(key.value() + "/" + judgedMeanwhile);
            FenceInstance d = instance(false);
            FenceInstance b = instance(!judgedMeanwhile);
            FenceInstance c = instance(false);
            d.fences.listenerConfirmed(clock.now());
            FenceClaim atFour = new FenceClaim(resource, new FencingToken(4), Optional.empty());
            FenceClaim atFive = new FenceClaim(resource, new FencingToken(5), Optional.empty());
            FenceClaim atSix = new FenceClaim(resource, new FencingToken(6), Optional.empty());
            assertThat(d.write(atFour)).as("D dies with this write in flight").isInstanceOf(FenceDecision.Admitted.class);
            sql("UPDATE " + schema + ".fence_inflight SET until = now() - interval '1 second' WHERE instance = '" + d.id + "'");
            assertThat(attempt(b, atFive)).isInstanceOf(FenceDecision.Draining.class);
            assertThat(attempt(c, atFive)).isInstanceOf(FenceDecision.Draining.class);
            clock.advance(Duration.ofMillis(1_300));
            assertThat(attempt(c, atFive)).as("C served its grace and removed D's row").isInstanceOf(FenceDecision.Admitted.class);
            c.finish(atFive);
            if (judgedMeanwhile) {
                assertThat(attempt(b, atFive)).as("nothing expired left for B").isInstanceOf(FenceDecision.Admitted.class);
                b.finish(atFive);
            } else {
                Thread.sleep(500); // B hears of the removal
            }
            clock.advance(Duration.ofSeconds(5));
            b.fences.reconcile();
            c.fences.reconcile();
            FenceInstance a = instance(false);
            a.fences.listenerConfirmed(clock.now());
            a.fences.enter(atFive);
            assertThat(a.admission.attempt(atFive)).isInstanceOf(FenceDecision.Admitted.class);
            // The database's clock jumps ahead: A's row has expired, though A's clock says it has seconds to go.
            sql("UPDATE " + schema + ".fence_inflight SET until = now() - interval '1 second' WHERE instance = '" + a.id + "'");

            FenceDecision firstSight = attempt(b, atSix);

            if (firstSight instanceof FenceDecision.Admitted) {
                b.finish(atSix);
            }
            a.fences.exit(atFive);
            assertThat(firstSight).as("B found A's row expired for the first time (judged meanwhile: %s)", judgedMeanwhile)
                    .isInstanceOf(FenceDecision.Draining.class);
        }
    }

    /**
     * The longest key a request can name (the longest canonical path, under a bucket named by the
     * Host, of characters that do not compress) fits the fence and registration indexes, and a
     * raise of it is announced to its holder.
     */
    @Test
    void aRaiseOfTheLongestKeyARequestCanNameIsAnnouncedToItsHolder() throws Exception {
        Random random = new Random(7);
        String unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
        StringBuilder path = new StringBuilder("/");
        while (path.length() < ResourcePaths.MAX_KEY_LENGTH) {
            path.append(unreserved.charAt(random.nextInt(unreserved.length())));
        }
        ResourceKey longest = new ResourceKey("/" + "b".repeat(63) + path);
        FenceClaim atFive = new FenceClaim(longest, new FencingToken(5), Optional.empty());
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(atFive);

        assertThat(b.write(new FenceClaim(longest, new FencingToken(6), Optional.empty())))
                .as("A holds 5 and is told").isInstanceOf(FenceDecision.Draining.class);

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(a.writeAndFinish(atFive)).isInstanceOf(FenceDecision.Stale.class));
    }

    private static FenceDecision attempt(FenceInstance instance, FenceClaim claim) {
        instance.readClock();
        instance.fences.enter(claim);
        FenceDecision decision = instance.admission.attempt(claim);
        if (!(decision instanceof FenceDecision.Admitted)) {
            instance.fences.exit(claim);
        }
        return decision;
    }

    private FenceInstance instance() {
        return instance(true);
    }

    private FenceInstance instance(boolean listening) {
        FenceInstance instance = new FenceInstance(database, clock, HeldFencesTest.TIMING, 100, listening);
        instances.add(instance);
        return instance;
    }

    private FenceClaim claim(long token) {
        return new FenceClaim(key, new FencingToken(token), Optional.empty());
    }

    private FenceClaim claim(long token, String holder) {
        return new FenceClaim(key, new FencingToken(token), Optional.of(new Holder(holder)));
    }

    private static void sql(String... statements) throws SQLException {
        var server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}
