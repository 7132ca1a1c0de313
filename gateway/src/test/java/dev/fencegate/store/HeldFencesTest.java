package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.LeaseTiming;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.Proxies;
import dev.fencegate.testing.TcpRelay;
import dev.fencegate.testing.TestPostgres;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.LoggerFactory;

/**
 * Fences held between writes, against a real PostgreSQL and on a clock the test moves: a holder
 * writing again at its token is admitted without a store trip, and no fence is held past a
 * raise, whoever made it, or past the registration it stands on.
 */
class HeldFencesTest {

    /** Rows last the store's apply time plus the headroom; the tests move the clock past them, never wait. */
    static final LeaseTiming TIMING = new LeaseTiming(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(2));
    private static final AtomicInteger RESOURCES = new AtomicInteger();

    private static String schema;
    private static FenceDatabase database;
    private final FenceInstance.FakeClock clock = new FenceInstance.FakeClock();
    private final List<FenceInstance> instances = new ArrayList<>();
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
        instances.forEach(FenceInstance::close);
    }

    @Test
    void aHolderWritingAgainWithItsTokenIsAdmittedWithoutAStoreTrip() {
        FenceInstance a = instance(100, true);
        a.holdAt(claim(5));

        int tripsBefore = a.trips.get();
        for (int i = 0; i < 50; i++) {
            assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        }
        assertThat(a.trips.get()).isEqualTo(tripsBefore);
    }

    @Test
    void aHeldFenceStillRefusesAnotherHolderAtTheSameToken() {
        FenceInstance a = instance(100, true);
        a.holdAt(claim(5, "worker-a"));

        assertThat(a.writeAndFinish(claim(5, "worker-b"))).isInstanceOf(FenceDecision.Reused.class);
        assertThat(a.writeAndFinish(claim(4, "worker-b"))).isInstanceOf(FenceDecision.Stale.class);
    }

    @Test
    void aRaiseOnAnotherInstanceEndsTheHoldBeforeItsWriteGoesAhead() throws Exception {
        FenceInstance a = instance(100, true);
        FenceInstance b = instance(100, true);
        a.holdAt(claim(5));
        FenceClaim slow = claim(5);
        assertThat(a.write(slow)).isInstanceOf(FenceDecision.Admitted.class); // still on its way to the store

        raiseWaitsForTheHoldersWriteAndEndsItsHold(a, slow, b, 6);
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
    }

    @Test
    void aFenceThisInstanceCreatedOrRaisedIsHeldForItsNextWrite() {
        FenceInstance a = instance(100, true);
        a.awaitListener();

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class); // creates the fence
        int afterCreating = a.trips.get();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).isEqualTo(afterCreating);

        assertThat(a.writeAndFinish(claim(6))).isInstanceOf(FenceDecision.Admitted.class); // raises it
        int afterRaising = a.trips.get();
        assertThat(afterRaising).isGreaterThan(afterCreating);
        assertThat(a.writeAndFinish(claim(6))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).isEqualTo(afterRaising);
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
    }

    @Test
    void aHoldFromThisInstancesOwnRaiseEndsWithARaiseOnAnotherInstance() throws Exception {
        FenceInstance a = instance(100, true);
        FenceInstance b = instance(100, true);
        a.awaitListener();
        a.writeAndFinish(claim(5));
        assertThat(a.writeAndFinish(claim(6))).isInstanceOf(FenceDecision.Admitted.class);
        int afterRaising = a.trips.get();
        FenceClaim slow = claim(6);
        assertThat(a.write(slow)).isInstanceOf(FenceDecision.Admitted.class); // from the hold, still on its way
        assertThat(a.trips.get()).isEqualTo(afterRaising);

        raiseWaitsForTheHoldersWriteAndEndsItsHold(a, slow, b, 7);
    }

    @Test
    void aRaiseWaitingOnThisInstancesOwnLowerWriteEndsTheHold() throws Exception {
        FenceInstance a = instance(100, true);
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
        FenceInstance a = instance(100, true);
        FenceInstance b = instance(100, true);
        a.holdAt(claim(5));
        FenceClaim slow = claim(5);
        assertThat(b.write(slow)).isInstanceOf(FenceDecision.Admitted.class); // B's write at 5 is on its way

        assertThat(a.write(claim(6))).isInstanceOf(FenceDecision.Draining.class);

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        b.finish(slow);
    }

    @Test
    void aFenceRaisedOutsideTheGatewaysEndsTheHold() throws SQLException {
        FenceInstance a = instance(100, true);
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
        FenceInstance a = instance(1, true);
        a.holdAt(claim(5));

        assertThat(a.writeAndFinish(claim(6))).isInstanceOf(FenceDecision.Admitted.class);
        a.writeAndFinish(new FenceClaim(new ResourceKey(key.value() + "-other"), new FencingToken(1), Optional.empty()));

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
    }

    @Test
    void noFenceIsHeldWithoutAListenerToHearOfRaises() {
        FenceInstance a = instance(100, false);
        a.writeAndFinish(claim(5));

        int tripsBefore = a.trips.get();
        for (int i = 0; i < 10; i++) {
            assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        }
        assertThat(a.trips.get() - tripsBefore).isEqualTo(10);
    }

    @Test
    void aFenceIsHeldNoLongerThanTheListenerIsConnected() {
        FenceInstance a = instance(100, true);
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

    /**
     * A listener still connected whose probes have not come back for {@code LISTENER_FRESH} (here
     * none can be sent: the pool is busy) may be missing raises: a fence held while it confirmed
     * is not used, and the holder's next write at it is judged by the store. The hold itself is
     * kept: once probes come back, it admits from memory again.
     */
    @Test
    void aFenceIsNotUsedWhileTheListenerHasNotConfirmedWithinASecond() {
        AtomicBoolean poolBusy = new AtomicBoolean();
        DataSource busyAfterTheFirst = busyAfterTheFirst(poolBusy);
        FenceInstance a = new FenceInstance(database, clock, TIMING, 100, true, busyAfterTheFirst);
        instances.add(a);
        a.holdAt(claim(5));

        // A probe reads the clock before it takes a connection: none confirms after this advance.
        poolBusy.set(true);
        clock.advance(InstanceFences.LISTENER_FRESH.plusMillis(100));
        assertThat(a.fences.hearsRaises()).isFalse();
        assertThat(a.fences.listenerLosses()).as("stale, not lost").isZero();

        long heldBefore = a.admission.heldAdmissions();
        int tripsBefore = a.trips.get();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).as("judged by the store, not from the held fence").isGreaterThan(tripsBefore);
        assertThat(a.admission.heldAdmissions()).isEqualTo(heldBefore);

        poolBusy.set(false);
        a.awaitListener();
        int tripsAfter = a.trips.get();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).as("the hold was kept, only unused").isEqualTo(tripsAfter);
        assertThat(a.fences.listenerLosses()).isZero();
    }

    @Test
    void aFenceIsHeldNoLongerThanItsRegistrationLeavesTimeToSend() {
        FenceInstance a = instance(100, true);
        a.holdAt(claim(5));

        // Past five sixths of the headroom, a write could barely go out before the row may lapse: the store is asked, and the row renewed.
        int tripsBefore = a.trips.get();
        clock.advance(Duration.ofMillis(2_600));
        a.awaitListener();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).isGreaterThan(tripsBefore);
    }

    @Test
    void aRegistrationStillWrittenUnderIsRenewedAheadSoItsHoldLasts() {
        FenceInstance a = instance(100, true);
        a.holdAt(claim(5));

        clock.advance(Duration.ofMillis(1_200));
        a.fences.reconcile(); // less than two thirds of the headroom left to send: renewed here, off the write path
        clock.advance(Duration.ofMillis(1_800)); // the first row would now leave no time to send
        a.awaitListener();

        int tripsBefore = a.trips.get();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).isEqualTo(tripsBefore);
    }

    /**
     * A renewal is a row write a second: worth it only for a resource written since its row was
     * last written. One written once (a new object) is left to run out, and its next write
     * registers again.
     */
    @Test
    void aRegistrationNotWrittenUnderSinceItWasLastWrittenIsNotRenewed() {
        // Released only after ten idle seconds, so nothing but the renewal rule can end the hold.
        FenceInstance a = instance(new LeaseTiming(TIMING.storeApply(), TIMING.headroom(), Duration.ofSeconds(10)), 100, true);
        a.holdAt(claim(5));

        clock.advance(Duration.ofMillis(1_200));
        a.fences.reconcile(); // written under since registered: renewed
        clock.advance(Duration.ofMillis(1_200));
        a.fences.reconcile(); // nothing written since the renewal: left to run out
        clock.advance(Duration.ofMillis(1_800)); // the renewed row now leaves no time to send
        a.awaitListener();

        int tripsBefore = a.trips.get();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(a.trips.get()).isGreaterThan(tripsBefore);
    }

    /**
     * After the listening connection drops, the database may not be the one the rows were
     * written to (a restart, a failover): the next write registers again instead of trusting its
     * lease, so a raise elsewhere can find it.
     */
    @Test
    void afterTheListenerWasLostTheNextWriteRegistersAgain() throws SQLException {
        FenceInstance a = instance(100, true);
        a.holdAt(claim(5));
        long before = generation(a);

        a.fences.listenerLost();
        a.awaitListener();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);

        assertThat(generation(a)).isGreaterThan(before);
    }

    /**
     * A connection pooler in transaction mode hands the notices that reach an idle server session
     * to no client, while the listener's own statements still run. Its probes, sent by another
     * session as any raise's notice is, are lost the same way: it never confirms, so held fences
     * stay unused and every write asks the database.
     */
    @Test
    void aListenerThatIsNotHandedItsNoticesNeverConfirms() throws SQLException {
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), UUID.randomUUID()),
                TIMING, System::nanoTime);
        try (InflightListener listener = new InflightListener(noticesDropped(database.dataSource()), fences,
                new RememberedFences(100), UUID.randomUUID()).start()) {
            await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3)).until(() -> !fences.hearsRaises());
        }
        try (InflightListener listener = new InflightListener(database.dataSource(), fences, new RememberedFences(100),
                UUID.randomUUID()).start()) {
            await().atMost(Duration.ofSeconds(5)).until(fences::hearsRaises);
        }
    }

    /**
     * A listening connection can go silent with no FIN and no RST (the server's host gone, a
     * partition): it is replaced within its socket timeout, as a dropped one is, so the next writes
     * register again, rather than waited on while probes come back through other connections.
     */
    @Test
    void aListeningConnectionGoneSilentIsLostWithinItsSocketTimeout() throws Exception {
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), UUID.randomUUID()),
                TIMING, System::nanoTime);
        DatabaseConfig config = TestPostgres.config(schema);
        try (TcpRelay relay = TcpRelay.toJdbc(config.url())) {
            DataSource firstRelayed = relay.firstConnectionThrough(config, 3, database.dataSource());
            try (InflightListener listener = new InflightListener(firstRelayed, fences, new RememberedFences(100),
                    UUID.randomUUID()).start()) {
                await().atMost(Duration.ofSeconds(5)).until(fences::hearsRaises);

                relay.freeze();

                await().atMost(Duration.ofSeconds(10)).until(() -> fences.listenerLosses() >= 1);
            }
        }
    }

    /**
     * Any role that may connect can send notices naming no resource: they are ignored, not taken
     * for a lost connection, which would end every instance's holds and the windows of the writes
     * still being sent, whatever their resource.
     */
    @Test
    void aNoticeNamingNoResourceIsIgnoredAndCostsNoWriteUnderWay() throws Exception {
        FenceInstance a = instance(100, true);
        FenceClaim claim = claim(5);
        a.holdAt(claim);
        FenceDecision underWay = a.write(claim);
        assertThat(underWay).isInstanceOf(FenceDecision.Admitted.class);

        notify(InflightListener.CHANNEL, "\n1");
        notify(InflightListener.CHANNEL, "\n");
        notify(InflightListener.ROW_REMOVED_CHANNEL, "x\n");
        notify(InflightListener.ROW_REMOVED_CHANNEL, "\n/a");
        // Heard after the others, in commit order: once it is known, they were delivered.
        ResourceKey sentinel = new ResourceKey("/sentinel/" + UUID.randomUUID());
        notify(InflightListener.CHANNEL, sentinel.value() + "\n9");
        await().atMost(Duration.ofSeconds(5)).until(() -> a.admission.knownStale(
                new FenceClaim(sentinel, new FencingToken(1), Optional.empty())).isPresent());

        assertThat(a.fences.listenerLosses()).isZero();
        assertThat(((FenceDecision.Admitted) underWay).window().closed()).as("the write under way may still be sent").isFalse();
        a.finish(claim);
    }

    /**
     * Any role that may connect can send on an instance's probe channel: nonces it could guess
     * (a count) would confirm the listener while its own probes are lost, so held fences would be
     * used while raises may go unheard.
     */
    @Test
    void probeNoncesSentByAnotherSessionDoNotConfirmTheListener() throws Exception {
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), UUID.randomUUID()),
                TIMING, System::nanoTime);
        UUID id = UUID.randomUUID();
        AtomicBoolean poolBusy = new AtomicBoolean(true); // its own probes are never sent
        try (InflightListener listener = new InflightListener(busyAfterTheFirst(poolBusy), fences, new RememberedFences(100), id)
                     .start();
             Connection attacker = database.dataSource().getConnection();
             PreparedStatement guesses = attacker.prepareStatement("SELECT count(pg_notify(?, g::text)) FROM generate_series(1, 100) g")) {
            guesses.setString(1, "fencegate_probe_" + id.toString().replace("-", ""));
            long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (System.nanoTime() < end) {
                guesses.execute();
                Thread.sleep(20);
                assertThat(fences.hearsRaises()).as("confirmed by guessed nonces").isFalse();
            }
        }
    }

    private static void notify(String channel, String payload) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement notice = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
            notice.setString(1, channel);
            notice.setString(2, payload);
            notice.execute();
        }
    }

    /**
     * A probe that cannot be sent (the pool busy, the database slow) is a probe lost, not a
     * listener lost: the listening connection still answers, so no lease is marked unconfirmed and
     * no write has to register again for it; held fences lapse only until probes come back.
     */
    @Test
    void aProbeThatCannotBeSentDoesNotCostTheListener() {
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), UUID.randomUUID()),
                TIMING, System::nanoTime);
        AtomicBoolean poolBusy = new AtomicBoolean();
        DataSource busyAfterTheFirst = busyAfterTheFirst(poolBusy);
        try (InflightListener listener = new InflightListener(busyAfterTheFirst, fences, new RememberedFences(100),
                UUID.randomUUID()).start()) {
            await().atMost(Duration.ofSeconds(5)).until(fences::hearsRaises);

            poolBusy.set(true);
            await().atMost(Duration.ofSeconds(3)).until(() -> !fences.hearsRaises());
            assertThat(fences.listenerLosses()).isZero();

            poolBusy.set(false);
            await().atMost(Duration.ofSeconds(5)).until(fences::hearsRaises);
            assertThat(fences.listenerLosses()).isZero();
        }
    }

    /**
     * A listener that cannot listen (the database refusing it, as a standby refuses LISTEN) says so
     * in the log once it has failed for 5 s, and says when it listens again, rather than only
     * through its metric.
     */
    @Test
    void aListenerThatCannotListenSaysSoInTheLogAndSaysWhenItListensAgain() {
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), UUID.randomUUID()),
                TIMING, System::nanoTime);
        AtomicBoolean refused = new AtomicBoolean(true);
        DataSource refusing = (DataSource) Proxy.newProxyInstance(HeldFencesTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && refused.get()) {
                        throw new SQLException("cannot execute LISTEN during recovery", "25006");
                    }
                    return Proxies.invoke(method, database.dataSource(), args);
                });
        ListAppender<ILoggingEvent> said = new ListAppender<>();
        said.start();
        Logger logger = (Logger) LoggerFactory.getLogger(InflightListener.class);
        logger.addAppender(said);
        try (InflightListener listener = new InflightListener(refusing, fences, new RememberedFences(100), UUID.randomUUID()).start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> events(said).stream().anyMatch(event -> event.getLevel() == Level.ERROR
                    && event.getFormattedMessage().contains("cannot listen for raises")
                    && event.getFormattedMessage().contains("cannot execute LISTEN during recovery")));
            assertThat(fences.hearsRaises()).isFalse();

            refused.set(false);

            await().atMost(Duration.ofSeconds(5)).until(fences::hearsRaises);
            assertThat(events(said)).anySatisfy(event -> assertThat(event.getFormattedMessage()).contains("listening again"));
            assertThat(events(said)).filteredOn(event -> event.getLevel() == Level.ERROR).hasSize(1);
        } finally {
            logger.detachAppender(said);
        }
    }

    /**
     * The process pauses (a GC, a stopped process) while the listener waits for notices: its
     * probe's silence over the pause is the pause's, not the database's or a pooler's, and is not
     * reported as theirs.
     */
    @Test
    void aListenerPausedWhileItWaitsDoesNotBlameTheDatabase() {
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), UUID.randomUUID()),
                TIMING, System::nanoTime);
        AtomicBoolean pauseNextWait = new AtomicBoolean();
        DataSource pausing = notificationsThrough(database.dataSource(), (notifications, method, args) -> {
            if (method.getName().equals("getNotifications") && pauseNextWait.getAndSet(false)) {
                Thread.sleep(6_000);
            }
            return Proxies.invoke(method, notifications, args);
        });
        ListAppender<ILoggingEvent> said = new ListAppender<>();
        said.start();
        Logger logger = (Logger) LoggerFactory.getLogger(InflightListener.class);
        logger.addAppender(said);
        try (InflightListener listener = new InflightListener(pausing, fences, new RememberedFences(100), UUID.randomUUID()).start()) {
            await().atMost(Duration.ofSeconds(5)).until(fences::hearsRaises);

            pauseNextWait.set(true);
            await().atMost(Duration.ofSeconds(5)).until(() -> !fences.hearsRaises());
            await().atMost(Duration.ofSeconds(10)).until(fences::hearsRaises);

            assertThat(events(said)).noneMatch(event -> event.getLevel() == Level.ERROR);
        } finally {
            logger.detachAppender(said);
        }
    }

    /** What {@code appender} got so far: it appends under its own lock, from the listener's thread. */
    private static List<ILoggingEvent> events(ListAppender<ILoggingEvent> appender) {
        synchronized (appender) {
            return List.copyOf(appender.list);
        }
    }

    /** Connections whose notices are never handed to the client, as a pooler drops an idle session's. */
    private static DataSource noticesDropped(DataSource dataSource) {
        return notificationsThrough(dataSource, (notifications, method, args) -> {
            if (!method.getName().equals("getNotifications")) {
                return Proxies.invoke(method, notifications, args);
            }
            if (args != null && args.length == 1 && (Integer) args[0] > 0) {
                Thread.sleep((Integer) args[0]);
            }
            return new PGNotification[0];
        });
    }

    /** A call on a connection's {@link PGConnection}, made or bent by a test. */
    private interface NotificationsCall {
        Object call(PGConnection notifications, Method method, Object[] args) throws Throwable;
    }

    /** {@code dataSource}, each call on its connections' {@link PGConnection} going through {@code call}. */
    private static DataSource notificationsThrough(DataSource dataSource, NotificationsCall call) {
        ClassLoader loader = HeldFencesTest.class.getClassLoader();
        return (DataSource) Proxy.newProxyInstance(loader, new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
            Object result = Proxies.invoke(method, dataSource, args);
            if (!method.getName().equals("getConnection")) {
                return result;
            }
            return Proxy.newProxyInstance(loader, new Class<?>[] {Connection.class}, (c, m, a) -> {
                Object made = Proxies.invoke(m, result, a);
                if (!m.getName().equals("unwrap") || a[0] != PGConnection.class) {
                    return made;
                }
                PGConnection notifications = (PGConnection) made;
                return Proxy.newProxyInstance(loader, new Class<?>[] {PGConnection.class},
                        (pg, pm, pa) -> call.call(notifications, pm, pa));
            });
        });
    }


    /** A new object's registration goes a second after its write: it costs the sweep and the table nothing after that. */
    @Test
    void aRegistrationOnlyItsOwnWriteWasWrittenUnderIsWithdrawnASecondAfterIt() throws SQLException {
        FenceInstance a = instance(new LeaseTiming(TIMING.storeApply(), TIMING.headroom(), Duration.ofSeconds(10)), 100, true);
        a.awaitListener();
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(rows(a)).isEqualTo(1);

        clock.advance(Duration.ofMillis(1_100));
        a.fences.reconcile();

        assertThat(rows(a)).isZero();
    }

    /** A resource written again keeps its registration for the idle release, so its writer keeps its hold. */
    @Test
    void aRegistrationWrittenUnderAgainIsKeptForTheIdleRelease() throws SQLException {
        FenceInstance a = instance(new LeaseTiming(TIMING.storeApply(), TIMING.headroom(), Duration.ofSeconds(10)), 100, true);
        a.holdAt(claim(5));

        clock.advance(Duration.ofMillis(1_100));
        a.fences.reconcile();

        assertThat(rows(a)).isEqualTo(1);
    }

    private long rows(FenceInstance instance) throws SQLException {
        return registration(instance, "count(*)");
    }

    private long generation(FenceInstance instance) throws SQLException {
        return registration(instance, "max(generation)");
    }

    /** An aggregate over this test's registration rows of {@code instance}; they must exist for anything but a count. */
    private long registration(FenceInstance instance, String aggregate) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT " + aggregate + " FROM fence_inflight WHERE resource = ? AND instance = ?")) {
            select.setString(1, key.value());
            select.setObject(2, instance.id);
            try (var row = select.executeQuery()) {
                row.next();
                long value = row.getLong(1);
                assertThat(row.wasNull()).as("registration row of %s", key).isFalse();
                return value;
            }
        }
    }

    @Test
    void aHoldEndsWithTheRegistrationItStoodOn() {
        FenceInstance a = instance(new LeaseTiming(TIMING.storeApply(), TIMING.headroom(), Duration.ofMillis(50)), 100, true);
        FenceInstance b = instance(100, true);
        a.holdAt(claim(5));
        clock.advance(Duration.ofMillis(100));
        a.fences.reconcile(); // idle: A withdraws its row
        // With no row of A's to wait for, B raises at once.
        assertThat(b.writeAndFinish(claim(6))).isInstanceOf(FenceDecision.Admitted.class);

        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Stale.class);
    }

    /**
     * A sweep's withdrawal that runs late, after its row was removed by another instance (as
     * expired, once a raise gave this one time to hear of it) and written anew by this instance's
     * next claim. A withdrawal touches a row only while it has the generation the sweep saw;
     * generations counted per row from 1 repeated, and the withdrawal removed the new row while a
     * write under it was in flight, so another instance's raise went ahead at once.
     */
    @Test
    void aWithdrawalRunLateDoesNotRemoveTheRowWrittenAnewAfterItsOwnWasRemoved() throws Exception {
        FenceInstance a = instance(100, true);
        FenceInstance b = instance(100, true);
        assertThat(a.writeAndFinish(claim(5))).isInstanceOf(FenceDecision.Admitted.class);
        // A's row expires unrenewed (A cut off, or stopped) and B's raise removes it after its grace;
        // on a gateway's own session, so unannounced, as if A heard the notice before writing again.
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement delete = connection.prepareStatement("DELETE FROM fence_inflight WHERE instance = ?")) {
            delete.setObject(1, a.id);
            delete.executeUpdate();
        }

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
        assertThat(rows(a)).as("A's new row, with its write at 5 in flight").isEqualTo(1);
        assertThat(b.write(claim(6))).as("B's raise to 6 while A's write at 5 is in flight").isInstanceOf(FenceDecision.Draining.class);
    }

    /**
     * The raiser's raise waits behind the holder's registration and tells the holder, whose writes at
     * {@code slow}'s token are stale from then on; once {@code slow} is done, the raise goes ahead.
     */
    private void raiseWaitsForTheHoldersWriteAndEndsItsHold(FenceInstance holder, FenceClaim slow, FenceInstance raiser,
                                                             long raisedTo) throws Exception {
        assertThat(raiser.write(claim(raisedTo))).isInstanceOf(FenceDecision.Draining.class);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(holder.writeAndFinish(claim(slow.token().value()))).isInstanceOf(FenceDecision.Stale.class));

        holder.finish(slow);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            holder.fences.reconcile();
            assertThat(raiser.write(claim(raisedTo))).isInstanceOf(FenceDecision.Admitted.class);
        });
    }

    private FenceClaim claim(long token) {
        return new FenceClaim(key, new FencingToken(token), Optional.empty());
    }

    private FenceClaim claim(long token, String holder) {
        return new FenceClaim(key, new FencingToken(token), Optional.of(new Holder(holder)));
    }

    private FenceInstance instance(int remembered, boolean listening) {
        return instance(TIMING, remembered, listening);
    }

    private FenceInstance instance(LeaseTiming timing, int remembered, boolean listening) {
        FenceInstance instance = new FenceInstance(database, clock, timing, remembered, listening);
        instances.add(instance);
        return instance;
    }

    /** The test database, whose every connection after the first times out, as a busy pool's would, while {@code poolBusy}. */
    private DataSource busyAfterTheFirst(AtomicBoolean poolBusy) {
        AtomicInteger opened = new AtomicInteger();
        return (DataSource) Proxy.newProxyInstance(HeldFencesTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && opened.getAndIncrement() > 0 && poolBusy.get()) {
                        throw new SQLException("Connection is not available, request timed out after 2000ms");
                    }
                    return Proxies.invoke(method, database.dataSource(), args);
                });
    }
}
