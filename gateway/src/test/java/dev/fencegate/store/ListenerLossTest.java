package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.Proxies;
import dev.fencegate.testing.TcpRelay;
import dev.fencegate.testing.TestPostgres;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An instance whose listening connection is lost cannot hear a change made meanwhile (its row
 * deleted by hand: the trigger's notice goes to nobody), so it stops sending the writes admitted
 * so far, and trusts no row write that was under way when the connection went.
 */
class ListenerLossTest {

    private static final AtomicInteger RESOURCES = new AtomicInteger();
    private static String schema;
    private static FenceDatabase database;
    private final FenceInstance.FakeClock clock = new FenceInstance.FakeClock();
    private final List<FenceInstance> instances = new ArrayList<>();
    private final ResourceKey key = new ResourceKey("/lost/r" + RESOURCES.incrementAndGet());

    @BeforeAll
    static void openDatabase() {
        schema = TestPostgres.newSchema(ListenerLossTest.class.getSimpleName());
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

    /**
     * A's write at 5 waits for its body when A's listening connection goes. A's row is deleted by
     * hand while nobody of A listens; B raises to 6, finds no row of A's and goes ahead at once.
     */
    @Test
    void aWriteAdmittedBeforeTheListenerWasLostIsNotSentAfterARaiseItCouldNotHear() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        FenceDecision.Admitted unsent = (FenceDecision.Admitted) a.write(claim(5));
        assertThat(unsent.window().closed()).isFalse();

        a.listener.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> !a.fences.hearsRaises() && a.fences.listenerLosses() >= 1);
        sql("DELETE FROM " + schema + ".fence_inflight WHERE instance = '" + a.id + "'");
        assertThat(b.write(claim(6))).as("B finds no row of A's below 6").isInstanceOf(FenceDecision.Admitted.class);
        b.finish(claim(6));

        assertThat(unsent.window().closed()).as("A's write at 5 must not go out after B's 6").isTrue();
        a.finish(unsent.claim());
    }

    /**
     * A sweep's renewal of A's row commits; then A's listening connection drops, the row is deleted
     * by hand, and the listener is back before the renewal is recorded. The renewal must cover no
     * write: A's next write registers again, so B's raise finds it and A hears of it.
     */
    @Test
    void aRowWriteUnderWayWhenTheListenerWasLostCoversNoWriteAfterItListensAgain() throws Exception {
        FenceInstance a = instance();
        FenceInstance b = instance();
        a.holdAt(claim(5));
        // Written under since its row was last written: the sweep renews it once little send time is left.
        a.finish(((FenceDecision.Admitted) a.write(claim(5))).claim());
        clock.advance(Duration.ofMillis(1_500));
        long lossesBefore = a.fences.listenerLosses();
        a.afterRowsWritten.set(() -> {
            try {
                sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND pid <> pg_backend_pid() AND query = 'SELECT 1'");
                await().atMost(Duration.ofSeconds(5)).until(() -> a.fences.listenerLosses() > lossesBefore);
                sql("DELETE FROM " + schema + ".fence_inflight WHERE instance = '" + a.id + "'");
                await().atMost(Duration.ofSeconds(5)).until(a.fences::hearsRaises);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        a.fences.reconcile();
        assertThat(a.afterRowsWritten.get()).as("the renewal ran").isNull();

        FenceDecision.Admitted next = (FenceDecision.Admitted) a.write(claim(5));
        a.finish(next.claim());
        assertThat(rowsOf(a)).as("A's next write registered again").isEqualTo(1);

        FenceDecision raised = b.write(claim(6));
        if (raised instanceof FenceDecision.Admitted admitted) {
            b.finish(admitted.claim());
        }
        FenceDecision late = a.write(claim(5));
        if (late instanceof FenceDecision.Admitted admitted) {
            a.finish(admitted.claim());
        }
        assertThat(late).as("A's write at 5 once B raised to 6").isNotInstanceOf(FenceDecision.Admitted.class);
    }

    /**
     * The listener's connection drops and cannot be replaced (new connections refused) while the
     * fence checks' connections work: a write the database admits meanwhile is not revoked by the
     * listener's next failed attempts, as nothing was raised or changed.
     */
    @Test
    void aWriteAdmittedWhileTheListenerCannotReconnectIsNotRevokedByItsFailedAttempts() throws Exception {
        AtomicBoolean refuse = new AtomicBoolean();
        AtomicInteger refused = new AtomicInteger();
        DataSource real = database.dataSource();
        DataSource refusing = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && refuse.get()) {
                        refused.incrementAndGet();
                        throw new SQLTransientConnectionException("FATAL: sorry, too many clients already");
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        FenceInstance a = new FenceInstance(database, clock, HeldFencesTest.TIMING, 100, true, refusing);
        instances.add(a);
        a.awaitListener();
        refuse.set(true);
        sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND pid <> pg_backend_pid() AND query = 'SELECT 1'");
        await().atMost(Duration.ofSeconds(5)).until(() -> !a.fences.hearsRaises() && refused.get() >= 1);

        // Pool connections killed with the listener's answer their next batches with a lost connection first.
        FenceDecision decision = a.write(claim(5));
        for (int retries = 0; decision instanceof FenceDecision.Unavailable && retries < 10; retries++) {
            Thread.sleep(100);
            decision = a.write(claim(5));
        }
        assertThat(decision).isInstanceOf(FenceDecision.Admitted.class);
        FenceDecision.Admitted admitted = (FenceDecision.Admitted) decision;
        int attempts = refused.get();
        await().atMost(Duration.ofSeconds(5)).until(() -> refused.get() >= attempts + 2);

        assertThat(admitted.window().closed()).as("closed by failed attempts to listen again").isFalse();
        a.finish(admitted.claim());
        refuse.set(false);
    }

    /**
     * A's listening connection drops, and before it listens again (its pause, or a pool slow to give
     * it a connection) A's next write writes a row, trusted since the loss came before it. That row
     * is deleted by hand, its notice heard by nobody of A. Once A listens again its lease covers
     * nothing until the row is written again: A's next write registers anew, so B's raise to 6
     * waits for it, where it would find no row of A's and go ahead while A's write at 5, and then
     * A's writes at 5 from memory, went on.
     */
    @Test
    void aRowWrittenWhileTheListenerWasAwayCoversNoWriteOnceItListensAgain() throws Exception {
        AtomicReference<CountDownLatch> gate = new AtomicReference<>();
        CountDownLatch blocked = new CountDownLatch(1);
        DataSource gated = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    CountDownLatch closed = gate.get();
                    if (method.getName().equals("getConnection") && closed != null) {
                        blocked.countDown();
                        closed.await(10, TimeUnit.SECONDS);
                    }
                    return Proxies.invoke(method, database.dataSource(), args);
                });
        FenceInstance a = new FenceInstance(database, clock, HeldFencesTest.TIMING, 100, true, gated);
        instances.add(a);
        FenceInstance b = instance();
        a.holdAt(claim(5));
        b.awaitListener();

        long lossesBefore = a.fences.listenerLosses();
        CountDownLatch open = new CountDownLatch(1);
        gate.set(open);
        sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND pid <> pg_backend_pid() AND query = 'SELECT 1'");
        await().atMost(Duration.ofSeconds(5)).until(() -> a.fences.listenerLosses() > lossesBefore);
        assertThat(blocked.await(5, TimeUnit.SECONDS)).as("A's listener waits for a connection").isTrue();
        // Pool connections killed with the listener's answer their next batches with a lost connection first.
        FenceDecision meanwhile = a.write(claim(5));
        for (int retries = 0; meanwhile instanceof FenceDecision.Unavailable && retries < 20; retries++) {
            Thread.sleep(100);
            meanwhile = a.write(claim(5));
        }
        assertThat(meanwhile).isInstanceOf(FenceDecision.Admitted.class);
        a.finish(claim(5));
        assertThat(rowsOf(a)).as("A's row, written while its listener was away").isEqualTo(1);
        sql("DELETE FROM " + schema + ".fence_inflight WHERE instance = '" + a.id + "'");
        gate.set(null);
        open.countDown();
        a.awaitListener();

        FenceDecision.Admitted underWay = (FenceDecision.Admitted) a.write(claim(5));
        assertThat(rowsOf(a)).as("A's write registered again").isEqualTo(1);
        FenceDecision raised = b.write(claim(6));
        if (raised instanceof FenceDecision.Admitted admitted) {
            b.finish(admitted.claim());
        }
        a.finish(underWay.claim());
        assertThat(raised).as("B's raise to 6 while A's write at 5 is under way").isInstanceOf(FenceDecision.Draining.class);
    }

    /**
     * A's listening connection goes silent (no FIN, no RST), which A can only take for lost at its
     * socket timeout, and A's row is deleted by hand meanwhile. Once the listener has not
     * confirmed for a while, A's lease does not cover a claim without its row: the claim's upsert
     * writes the row again, so B's raise to 6 waits for A's write at 5.
     */
    @Test
    void aClaimIsNotCoveredWithoutItsRowWhileTheListenerHasNotConfirmedLately() throws Exception {
        DatabaseConfig config = TestPostgres.config(schema);
        try (TcpRelay relay = TcpRelay.toJdbc(config.url())) {
            FenceInstance a = new FenceInstance(database, clock, HeldFencesTest.TIMING, 100, true,
                    relay.firstConnectionThrough(config, 30, database.dataSource()));
            instances.add(a);
            FenceInstance b = instance();
            a.holdAt(claim(5));
            b.awaitListener();

            relay.freeze();
            sql("DELETE FROM " + schema + ".fence_inflight WHERE instance = '" + a.id + "'");
            clock.advance(Duration.ofMillis(1_100));
            assertThat(a.fences.hearsRaises()).isFalse();
            assertThat(a.fences.listenerLosses()).as("silent, not yet lost").isZero();

            FenceDecision.Admitted underWay = (FenceDecision.Admitted) a.write(claim(5));
            assertThat(rowsOf(a)).as("A's claim wrote its row again").isEqualTo(1);
            b.readClock();
            FenceDecision raised = b.write(claim(6));
            if (raised instanceof FenceDecision.Admitted admitted) {
                b.finish(admitted.claim());
            }
            a.finish(underWay.claim());
            assertThat(raised).as("B's raise to 6 while A's write at 5 is under way").isInstanceOf(FenceDecision.Draining.class);
        }
    }

    private static long rowsOf(FenceInstance instance) throws SQLException {
        var server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT count(*) FROM " + schema + ".fence_inflight WHERE instance = '" + instance.id + "'")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private FenceInstance instance() {
        FenceInstance instance = new FenceInstance(database, clock, HeldFencesTest.TIMING, 100, true);
        instances.add(instance);
        return instance;
    }

    private FenceClaim claim(long token) {
        return new FenceClaim(key, new FencingToken(token), Optional.empty());
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
