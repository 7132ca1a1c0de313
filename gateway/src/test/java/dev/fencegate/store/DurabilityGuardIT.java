package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencegate.client.LeaseStoreException;
import dev.fencegate.client.PostgresLeaseStore;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.fence.FenceAdmission;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.RestartablePostgres;
import dev.fencegate.testing.TestPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Writes are refused on settings that can lose acknowledged fences, unless the operator accepts that. */
class DurabilityGuardIT {

    private static final String UNSAFE_ROLE = "fencegate_async_commit";

    /**
     * A role's or database's {@code synchronous_commit = off} reaches every session that starts
     * after it was set, whenever that was, while the check each second reads one session: every
     * session the fence pool makes is set to commit durably before it is used, and writes go on.
     * Under {@code --allow-unsafe-durability} sessions are left as they start, and the guard says
     * what that costs.
     */
    @Test
    void everyFenceSessionCommitsDurablyWhateverItsRoleSaysUnlessOverridden() throws Exception {
        DatabaseConfig unsafe = asyncCommitRole(TestPostgres.newSchema("durability"));
        assertThat(sessionCommits(unsafe, false)).as("every session of the pool").containsOnly("on (session)");
        assertThat(sessionCommits(unsafe, true)).as("every session of the pool, overridden").containsOnly("off (user)");

        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, unsafe, Duration.ofSeconds(5), Duration.ofSeconds(5), SafetyConfig.defaults()))) {
            assertThat(gateway.put("/d/k", 1, "x").statusCode()).isEqualTo(201);
            assertThat(gateway.gateway.ready()).isTrue();
        }
    }

    /**
     * A session that starts with {@code synchronous_commit} as the server's settings give it would
     * follow them on a reload ({@code ALTER SYSTEM SET synchronous_commit = off}, then
     * {@code pg_reload_conf()}) while it stays open: every session of the fence pool sets its own,
     * which a reload does not reach, whatever the value it started with.
     */
    @Test
    void everyFenceSessionSetsItsOwnCommitSettingSoNoReloadReachesIt() throws Exception {
        assertThat(sessionCommits(TestPostgres.config(TestPostgres.newSchema("own_commit")), false))
                .as("every session of the pool").containsOnly("on (session)");
    }

    /**
     * A server restarted with {@code fsync} off is reached through new sessions only, while the
     * verdict of the last check (safe) stands through the outage: each new session is read before
     * it is used, so none is, and writes are refused naming the setting before the next check.
     */
    @Test
    void aServerRestartedWithFsyncOffGetsNoSessionBeforeTheNextCheck() throws Exception {
        try (RestartablePostgres server = RestartablePostgres.create()) {
            server.start(Map.of());
            DatabaseConfig config = new DatabaseConfig(server.url(), "public", "postgres", "", 2, Duration.ofSeconds(1));
            DurabilityGuard durability = new DurabilityGuard(false, false);
            try (FenceDatabase database = FenceDatabase.open(config, "", false, new HistoryGuard(UUID.randomUUID(), false, false),
                    durability)) {
                try (Connection session = database.dataSource().getConnection()) {
                    durability.check(session);
                }
                assertThat(durability.refusal()).isEmpty();

                server.stop();
                server.start(Map.of("fsync", "off"));
                assertThatThrownBy(() -> selectOne(database)).isInstanceOf(java.sql.SQLException.class);
                assertThat(durability.refusal()).hasValueSatisfying(words -> assertThat(words).contains("fsync is off"));

                server.stop();
                server.start(Map.of());
                try (Connection session = database.dataSource().getConnection()) {
                    durability.check(session);
                }
                assertThat(durability.refusal()).isEmpty();
            }
        }
    }

    @Test
    void writesAreRefusedWhenASynchronousStandbyIsRequiredAndThereIsNone() {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, TestPostgres.config(TestPostgres.newSchema("sync_standby")), Duration.ofSeconds(5), Duration.ofSeconds(5),
                new SafetyConfig(false, true, 100_000)))) {
            HttpResponse<String> refused = gateway.put("/d/k", 1, "x");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.body()).contains("synchronous standby");
        }
    }

    /**
     * This server has no standby, which is also what a replicated cluster's new primary looks like
     * before its standbys reattach: told the database is replicated, the gateway refuses writes and
     * says so in the 503 and in /readyz.
     */
    @Test
    void aPrimaryWhoseStandbysAreAwayIsNotReadyWhenTheDatabaseIsSaidToBeReplicated() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, TestPostgres.config(TestPostgres.newSchema("standbys_away")), Duration.ofSeconds(5), Duration.ofSeconds(5),
                new SafetyConfig(false, true, 100_000)))) {
            HttpResponse<String> refused = gateway.put("/d/away", 1, "x");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.body()).contains("standbys are away");
            var readyz = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + gateway.gateway.adminPort() + "/readyz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(readyz.statusCode()).isEqualTo(503);
            assertThat(readyz.body()).contains("standbys are away");
            assertThat(gateway.store.applied()).isEmpty();
        }
    }

    /**
     * A commit whose wait for a synchronous standby is cancelled comes back successful with a
     * warning: visible, but not replicated. Raising a fence on it would be a lie.
     */
    @Test
    void aCommitThatComesBackWithAWarningIsNotADurableFence() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("synchronous_commit", "on").start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            DatabaseConfig config = new DatabaseConfig(url, "public", "postgres", "", 2, Duration.ofSeconds(5));
            try (FenceDatabase database = FenceDatabase.open(config);
                 Connection admin = DriverManager.getConnection(url, "postgres", "");
                 Statement statement = admin.createStatement()) {
                database.migrate();
                // From now on every commit waits for a synchronous standby that never comes.
                nameSyncStandbys(statement, "nobody");

                PostgresFenceStore store = new PostgresFenceStore(database.dataSource());
                FenceClaim claim = new FenceClaim(new ResourceKey("/w/k"), new FencingToken(3), Optional.empty());
                var admitting = java.util.concurrent.CompletableFuture.supplyAsync(() -> store.admit(claim));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> cancelSyncRepWaits(statement) > 0);

                assertThatThrownBy(admitting::join)
                        .hasCauseInstanceOf(FenceStoreUnavailableException.class)
                        .hasMessageContaining("not confirmed durable");
            }
        }
    }

    /**
     * A write's raise whose commit came back with a warning is answered 503, but its fence is visible
     * on the primary and was announced to nobody: another instance holding the fence below it would
     * go on admitting from memory. The claim is asked again, which announces the raise, and the hold
     * ends.
     */
    @Test
    void aRaiseWhoseCommitCameBackWithAWarningIsAnnouncedAndEndsTheHoldBelowIt() throws Exception {
        raiseToSixPastAHoldAtFive(Duration.ofSeconds(5), () -> false, (raising, six, admin) -> {
            var attempt = java.util.concurrent.CompletableFuture.supplyAsync(() -> raising.attempt(six));
            Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
                cancelSyncRepWaits(admin);
                return attempt.isDone();
            });
            assertThat(attempt.get()).isInstanceOfSatisfying(FenceDecision.Unavailable.class,
                    unavailable -> assertThat(unavailable.detail()).contains("not confirmed durable"));
        });
    }

    /**
     * A raise whose commit waits for a synchronous standby that does not come, past the fence
     * check's statement timeout (which stops before the commit): the driver cancels it before its
     * socket times out, so the session does not go on waiting with the fence row locked, to land
     * the raise unannounced when the standby comes back. The cancelled commit comes back with a
     * warning, and the raise is announced.
     */
    @Test
    void aRaiseWhoseStandbyWaitOutlastsTheCheckIsCancelledAnnouncedAndEndsTheHoldBelowIt() throws Exception {
        raiseToSixPastAHoldAtFive(Duration.ofSeconds(2), () -> true, (raising, six, admin) -> {
            assertThat(raising.attempt(six)).isInstanceOf(FenceDecision.Unavailable.class);
            try (var waiting = admin.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")) {
                waiting.next();
                assertThat(waiting.getInt(1)).as("no session left waiting for the standby").isZero();
            }
        });
    }

    /** How a raise is tried while the synchronous standbys named never come, with the admin session's statement at hand. */
    private interface RaiseAttempt {
        void attempt(FenceAdmission raising, FenceClaim six, Statement admin) throws Exception;
    }

    /**
     * An instance holds /w/held at 5; synchronous standbys are named that never come, and another
     * instance's write at 6 is tried as {@code attempt} says, with fence checks of {@code checkTimeout};
     * once the standbys are no longer named, the fence reads 6 and the hold at 5 has ended.
     */
    private static void raiseToSixPastAHoldAtFive(Duration checkTimeout, java.util.function.BooleanSupplier standbysNamed,
                                                  RaiseAttempt attempt) throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("synchronous_commit", "on").start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            DatabaseConfig config = new DatabaseConfig(url, "public", "postgres", "", 6, checkTimeout);
            ResourceKey key = new ResourceKey("/w/held");
            FenceClaim five = new FenceClaim(key, new FencingToken(5), Optional.empty());
            FenceClaim six = new FenceClaim(key, new FencingToken(6), Optional.empty());
            FenceInstance.FakeClock clock = new FenceInstance.FakeClock();
            try (FenceDatabase database = FenceDatabase.open(config);
                 Connection admin = DriverManager.getConnection(url, "postgres", "");
                 Statement statement = admin.createStatement()) {
                database.migrate();
                try (FenceInstance holder = new FenceInstance(database, clock, HeldFencesTest.TIMING, 100, true)) {
                    holder.holdAt(five);

                    nameSyncStandbys(statement, "nobody");
                    UUID other = UUID.randomUUID();
                    InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), other),
                            HeldFencesTest.TIMING, clock::now);
                    FenceAdmission raising = new FenceAdmission(new PostgresFenceStore(database.dataSource(), other, standbysNamed),
                            fences, new RememberedFences(100), regressed -> { });
                    fences.enter(six);
                    attempt.attempt(raising, six, statement);
                    fences.exit(six);
                    nameSyncStandbys(statement, "");

                    assertThat(new PostgresFenceStore(database.dataSource()).read(key).orElseThrow().token().value()).isEqualTo(6);
                    Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                            assertThat(holder.writeAndFinish(five)).isInstanceOf(FenceDecision.Stale.class));
                }
            }
        }
    }

    /**
     * The worker library's lease store holds its grants to the same rule: a grant whose commit
     * came back with a warning may be gone after a failover, and the same token granted again, so
     * the caller gets a failure, not a lease.
     */
    @Test
    void aLeaseGrantWhoseCommitComesBackWithAWarningIsAFailedGrant() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("synchronous_commit", "on").start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            javax.sql.DataSource leases = PostgresLeaseStore.dataSource(url, "postgres", "", "public", Duration.ofSeconds(30));
            PostgresLeaseStore.migrate(leases, "public");
            PostgresLeaseStore store = new PostgresLeaseStore(leases);
            try (Connection admin = DriverManager.getConnection(url, "postgres", "");
                 Statement statement = admin.createStatement()) {
                nameSyncStandbys(statement, "nobody");
                var acquiring = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> store.acquire("nightly-export", "worker-a", Duration.ofSeconds(30)));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> cancelSyncRepWaits(statement) > 0);

                assertThatThrownBy(acquiring::join)
                        .hasCauseInstanceOf(LeaseStoreException.class)
                        .hasMessageContaining("the commit may not be durable");
                try (var rows = statement.executeQuery("SELECT token FROM leases WHERE name = 'nightly-export'")) {
                    assertThat(rows.next()).as("the grant is on the primary all the same").isTrue();
                    assertThat(rows.getLong(1)).isEqualTo(1);
                }
            }
        }
    }

    /**
     * A registration's commit that came back with a warning (a renewal's, whose wait for the
     * synchronous standby was cancelled) is on the primary only: taken as written, it would carry
     * the windows of writes under way past what a promoted standby holds of the row, and another
     * instance would find the row expired and raise while they still go out. It is a failed write
     * whose rows may have committed: written again by the next sweep, to be learned and withdrawn.
     */
    @Test
    void aRegistrationWhoseCommitComesBackWithAWarningIsNotTakenAsWritten() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("synchronous_commit", "on").start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            DatabaseConfig config = new DatabaseConfig(url, "public", "postgres", "", 2, Duration.ofSeconds(5));
            try (FenceDatabase database = FenceDatabase.open(config);
                 Connection admin = DriverManager.getConnection(url, "postgres", "");
                 Statement statement = admin.createStatement()) {
                database.migrate();
                nameSyncStandbys(statement, "nobody");

                PostgresInflightRegistrations rows = new PostgresInflightRegistrations(database.dataSource(), java.util.UUID.randomUUID());
                var writing = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> rows.write(java.util.Map.of(new ResourceKey("/w/renewed"), 3L), Duration.ofSeconds(10)));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> cancelSyncRepWaits(statement) > 0);

                assertThatThrownBy(writing::join).hasCauseInstanceOf(FenceStoreUnavailableException.class)
                        .hasMessageContaining("not confirmed durable")
                        .satisfies(e -> assertThat(((FenceStoreUnavailableException) e.getCause()).sent()).isTrue());
            }
        }
    }

    /**
     * A raise whose commit came back with a warning is answered 503, but its fence is visible on
     * the primary. The writer retries with the same token, as the 503 says to, and its claim is now
     * at the fence: judged on a read, it writes nothing, so its own statement waits for no standby.
     * Admitting it would send a write on a fence a failover can lose; it is admitted only once a
     * commit after the read is confirmed.
     */
    @Test
    void aRetryAtAFenceOnlyAnUnconfirmedCommitWroteIsNotAdmittedUntilACommitIsConfirmed() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("synchronous_commit", "on").start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            DatabaseConfig config = new DatabaseConfig(url, "public", "postgres", "", 2, Duration.ofSeconds(5));
            ResourceKey key = new ResourceKey("/w/retry");
            try (FenceDatabase database = FenceDatabase.open(config);
                 Connection admin = DriverManager.getConnection(url, "postgres", "");
                 Statement statement = admin.createStatement();
                 FenceInstance a = new FenceInstance(database, new FenceInstance.FakeClock(), HeldFencesTest.TIMING, 100, false)) {
                database.migrate();
                FenceClaim atTwo = new FenceClaim(key, new FencingToken(2), Optional.empty());
                FenceClaim atThree = new FenceClaim(key, new FencingToken(3), Optional.empty());
                // The writer at 2 has been writing through A: A's registration covers 2 and up.
                assertThat(a.writeAndFinish(atTwo)).isInstanceOf(FenceDecision.Admitted.class);

                // The synchronous standby stops confirming.
                nameSyncStandbys(statement, "nobody");
                a.checkDurability();
                var raising = java.util.concurrent.CompletableFuture.supplyAsync(() -> a.writeAndFinish(atThree));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> cancelSyncRepWaits(statement) > 0);
                assertThat(raising.get()).as("the raise's own claim").isInstanceOf(FenceDecision.Unavailable.class);

                var retrying = java.util.concurrent.CompletableFuture.supplyAsync(() -> a.writeAndFinish(atThree));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                        .until(() -> retrying.isDone() || cancelSyncRepWaits(statement) > 0);
                assertThat(retrying.get()).as("fence 3 is only in a commit no standby confirmed")
                        .isInstanceOf(FenceDecision.Unavailable.class);

                // A standby confirms again (here: none is named any more): the retry is admitted.
                nameSyncStandbys(statement, "");
                a.checkDurability();
                assertThat(a.writeAndFinish(atThree)).isInstanceOf(FenceDecision.Admitted.class);
            }
        }
    }

    /**
     * PostgreSQL releases the commits waiting for a synchronous standby, successful and with no
     * warning, when synchronous_standby_names is emptied, as Patroni does about a second after the
     * last synchronous standby went away: such a commit is on the primary only. With a synchronous
     * standby required, nothing is admitted on it.
     */
    @Test
    void aCommitReleasedByEmptyingTheStandbyNamesAdmitsNothingWhenAStandbyIsRequired() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("synchronous_commit", "on").start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            DatabaseConfig config = new DatabaseConfig(url, "public", "postgres", "", 2, Duration.ofSeconds(5));
            try (FenceDatabase database = FenceDatabase.open(config);
                 Connection admin = DriverManager.getConnection(url, "postgres", "");
                 Statement statement = admin.createStatement()) {
                database.migrate();
                nameSyncStandbys(statement, "nobody");

                PostgresFenceStore store = new PostgresFenceStore(database.dataSource(), java.util.UUID.randomUUID(), () -> true, true);
                FenceClaim claim = new FenceClaim(new ResourceKey("/w/emptied"), new FencingToken(3), Optional.empty());
                var admitting = java.util.concurrent.CompletableFuture.supplyAsync(() -> store.admitAll(java.util.List.of(claim)).get(0));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> syncRepWaits(statement) > 0);
                nameSyncStandbys(statement, "");

                FenceDecision decision = admitting.get(5, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(decision).isInstanceOf(FenceDecision.Unavailable.class);
                assertThat(((FenceDecision.Unavailable) decision).detail()).contains("synchronous_standby_names was emptied");
            }
        }
    }

    private static int syncRepWaits(Statement statement) throws java.sql.SQLException {
        try (var rows = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static void nameSyncStandbys(Statement statement, String names) throws Exception {
        statement.execute("ALTER SYSTEM SET synchronous_standby_names = '" + names + "'");
        statement.execute("SELECT pg_reload_conf()");
        Thread.sleep(300);
    }

    private static int cancelSyncRepWaits(Statement statement) throws java.sql.SQLException {
        try (var rows = statement.executeQuery("SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity "
                + "WHERE wait_event = 'SyncRep'")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** One statement on a session of the pool; the pool checks a session idle for half a second before it lends it. */
    private static void selectOne(FenceDatabase database) throws Exception {
        Thread.sleep(600);
        try (Connection session = database.dataSource().getConnection(); Statement statement = session.createStatement()) {
            statement.execute("SELECT 1");
        }
    }

    /** What each session of a fence pool, opened as the gateway opens it, commits with, and where that value came from. */
    private static List<String> sessionCommits(DatabaseConfig config, boolean allowUnsafe) throws Exception {
        DurabilityGuard durability = new DurabilityGuard(allowUnsafe, false);
        HistoryGuard history = new HistoryGuard(UUID.randomUUID(), allowUnsafe, false);
        try (FenceDatabase database = FenceDatabase.open(config, "", false, history, durability)) {
            List<Connection> sessions = new ArrayList<>();
            try {
                // All at once: the pool hands out every session it has, and makes the rest.
                for (int i = 0; i < database.dataSource().getMaximumPoolSize(); i++) {
                    sessions.add(database.dataSource().getConnection());
                }
                List<String> commits = new ArrayList<>();
                for (Connection session : sessions) {
                    try (Statement statement = session.createStatement();
                         var row = statement.executeQuery("SELECT setting, source FROM pg_settings WHERE name = 'synchronous_commit'")) {
                        row.next();
                        commits.add(row.getString(1) + " (" + row.getString(2) + ")");
                    }
                }
                return commits;
            } finally {
                for (Connection session : sessions) {
                    session.close();
                }
            }
        }
    }

    private static DatabaseConfig asyncCommitRole(String schema) throws Exception {
        var server = TestPostgres.server();
        try (Connection admin = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement statement = admin.createStatement()) {
            statement.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + UNSAFE_ROLE + "') THEN "
                    + "CREATE ROLE " + UNSAFE_ROLE + " LOGIN SUPERUSER; END IF; END $$");
            statement.execute("ALTER ROLE " + UNSAFE_ROLE + " SET synchronous_commit = off");
        }
        DatabaseConfig base = TestPostgres.config(schema);
        return new DatabaseConfig(base.url(), schema, UNSAFE_ROLE, "", base.poolSize(), base.checkTimeout());
    }
}
