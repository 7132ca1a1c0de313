package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.fence.FenceStoreContract;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.Proxies;
import dev.fencegate.testing.TestPostgres;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** The fence contract against a real PostgreSQL, plus the guarantees the table itself gives. */
class PostgresFenceStoreTest extends FenceStoreContract {

    private static FenceDatabase database;
    private static PostgresFenceStore store;

    @BeforeAll
    static void openDatabase() {
        database = TestPostgres.migrated(PostgresFenceStoreTest.class.getSimpleName());
        store = new PostgresFenceStore(database.dataSource());
    }

    @AfterAll
    static void closeDatabase() {
        if (database != null) {
            database.close();
        }
    }

    @Override
    protected FenceStore store() {
        return store;
    }

    @Test
    void theDatabaseRefusesToLowerAFence() throws SQLException {
        ResourceKey key = recorded(7);

        assertThatThrownBy(() -> execute("UPDATE fence SET token = token - 1 WHERE resource = ?", key))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("may not go down from 7 to 6");
        assertThat(store.read(key).map(Fence::token)).contains(new FencingToken(7));
    }

    @Test
    void theDatabaseStillLetsAFenceGoUp() throws SQLException {
        ResourceKey key = recorded(7);

        assertThat(execute("UPDATE fence SET token = token + 1 WHERE resource = ?", key)).isEqualTo(1);
        assertThat(store.read(key).map(Fence::token)).contains(new FencingToken(8));
    }

    @Test
    void theDatabaseRefusesToDeleteAFence() throws SQLException {
        ResourceKey key = recorded(3);

        assertThatThrownBy(() -> execute("DELETE FROM fence WHERE resource = ?", key))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("never deleted");
        assertThatThrownBy(() -> execute("DELETE FROM fence", null))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("never deleted");
        assertThatThrownBy(() -> execute("TRUNCATE fence", null))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("never deleted");
        assertThat(store.read(key).map(Fence::token)).contains(new FencingToken(3));
    }

    /**
     * session_replication_role = replica (bulk loads, restores, a superuser's hand fix) skips every
     * trigger not enabled ALWAYS: the fence is deleted, lowered or truncated without a word, and a
     * stale writer is admitted.
     */
    @Test
    void theDatabaseRefusesToLowerDeleteOrTruncateAFenceEvenInReplicaMode() throws SQLException {
        ResourceKey key = recorded(9);

        for (String sql : new String[] {"UPDATE fence SET token = 1 WHERE resource = ?", "DELETE FROM fence WHERE resource = ?",
                "TRUNCATE fence"}) {
            try (Connection connection = database.dataSource().getConnection()) {
                connection.setAutoCommit(false);
                try (Statement replica = connection.createStatement()) {
                    replica.execute("SET LOCAL session_replication_role = replica");
                }
                try (PreparedStatement statement = connection.prepareStatement(sql)) {
                    if (sql.contains("?")) {
                        statement.setString(1, key.value());
                    }
                    assertThatThrownBy(statement::executeUpdate).as(sql).isInstanceOf(SQLException.class);
                } finally {
                    connection.rollback();
                    connection.setAutoCommit(true);
                }
            }
        }
        assertThat(store.read(key).map(Fence::token)).contains(new FencingToken(9));
    }

    /** A fence row under another key is the old key's fence deleted: a writer below it would be admitted there. */
    @Test
    void theDatabaseRefusesToRenameAFence() throws SQLException {
        ResourceKey key = recorded(5);

        assertThatThrownBy(() -> execute("UPDATE fence SET resource = resource || '.moved' WHERE resource = ?", key))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("never renamed");
        assertThat(store.read(key).map(Fence::token)).contains(new FencingToken(5));
        assertThat(store.admit(new FenceClaim(key, new FencingToken(3), Optional.empty())))
                .isInstanceOf(FenceDecision.Stale.class);
    }

    @Test
    void theGatewaysOwnWritesCallNoTriggerFunctionPerRow() throws SQLException {
        try (Connection gateway = database.dataSource().getConnection()) {
            assertThat(triggerFunctionCalls(gateway)).isZero();
        }
        try (Connection outside = database.dataSource().getConnection()) {
            outside.createStatement().execute("SET fencegate.gateway = off");
            try {
                assertThat(triggerFunctionCalls(outside)).as("the same writes made outside the gateway").isEqualTo(3);
            } finally {
                markAsGateway(outside);
            }
        }
        // A session that names its naming has it checked once per statement that registers, not per row.
        try (Connection named = database.dataSource().getConnection()) {
            named.setAutoCommit(false);
            try (Statement sql = named.createStatement()) {
                sql.execute("SET LOCAL track_functions = 'pl'");
                sql.execute("SET LOCAL fencegate.naming = 'k'");
                sql.execute("INSERT INTO fence_naming (naming, naming_key, carried, carried_naming) VALUES ('n', 'k', true, 'n')"
                        + " ON CONFLICT DO NOTHING");
                long before = functionCalls(sql);
                sql.execute("INSERT INTO fence_inflight SELECT '/trigger/' || i, gen_random_uuid(), 2, now(), 1"
                        + " FROM generate_series(1, 5) i");
                assertThat(functionCalls(sql) - before).isEqualTo(1);
            } finally {
                named.rollback();
                named.setAutoCommit(true);
            }
        }
    }

    /**
     * The gateways' sessions were told apart by {@code fencegate.gateway = 'on'}, which any session
     * can set: a raise by hand from such a session went unannounced, and an instance holding the
     * old fence went on admitting below the new one from memory. The mark is the fence database's
     * own now, which only gateways read and set: {@code 'on'} marks nothing, and the raise is
     * announced, as is a registration deleted by hand from such a session.
     */
    @Test
    void aRaiseByHandFromASessionThatCallsItselfAGatewayIsAnnounced() throws Exception {
        ResourceKey key = recorded(5);
        try (Connection listener = database.dataSource().getConnection(); Connection hand = database.dataSource().getConnection()) {
            listener.createStatement().execute("LISTEN fencegate_inflight");
            try {
                hand.createStatement().execute("SET fencegate.gateway = 'on'");
                hand.createStatement().execute("SET application_name = 'psql'");
                try (PreparedStatement raise = hand.prepareStatement("UPDATE fence SET token = 9, holder = NULL WHERE resource = ?")) {
                    raise.setString(1, key.value());
                    assertThat(raise.executeUpdate()).isEqualTo(1);
                }
                assertThat(heard(listener)).as("notices after the raise by hand").contains(key.value());

                try (PreparedStatement register = hand.prepareStatement(
                        "INSERT INTO fence_inflight VALUES (?, gen_random_uuid(), 9, now() + interval '1 minute', 1)")) {
                    register.setString(1, key.value());
                    register.executeUpdate();
                }
                heard(listener);
                try (PreparedStatement delete = hand.prepareStatement("DELETE FROM fence_inflight WHERE resource = ?")) {
                    delete.setString(1, key.value());
                    assertThat(delete.executeUpdate()).isEqualTo(1);
                }
                assertThat(heard(listener)).as("notices after a registration deleted by hand").contains(key.value());
            } finally {
                markAsGateway(hand);
                hand.createStatement().execute("RESET application_name");
                listener.createStatement().execute("UNLISTEN *");
            }
        }
    }

    /**
     * A session the pool opened before the migration that chose the mark ran (the pool fills
     * itself at once, the migration comes at the first check) has no mark, so its own raises would
     * be announced to every instance: the pool replaces its sessions once migrated.
     */
    @Test
    void sessionsOpenedBeforeTheMarkWasChosenAreReplacedOnceMigrated() throws SQLException {
        try (FenceDatabase fresh = FenceDatabase.open(TestPostgres.config(TestPostgres.newSchema(getClass().getSimpleName() + "_fresh")))) {
            try (Connection early = fresh.dataSource().getConnection()) {
                assertThat(gatewaySetting(early)).as("before the migration").isEqualTo("on");
            }
            fresh.migrate();
            for (int i = 0; i < 6; i++) {
                try (Connection session = fresh.dataSource().getConnection(); Statement sql = session.createStatement();
                     ResultSet mark = sql.executeQuery("SELECT mark FROM gateway_mark")) {
                    mark.next();
                    assertThat(gatewaySetting(session)).as("session %d after the migration", i).isEqualTo(mark.getString(1));
                }
            }
        }
    }

    private static String gatewaySetting(Connection session) throws SQLException {
        try (Statement sql = session.createStatement();
             ResultSet setting = sql.executeQuery("SELECT coalesce(current_setting('fencegate.gateway', true), '')")) {
            setting.next();
            return setting.getString(1);
        }
    }

    /**
     * Sessions of earlier versions set {@code fencegate.gateway = 'on'}, under the application name
     * a gateway gives its sessions; taken for anyone's, their own raises and registrations were
     * announced back to them, and every write through such an instance was refused once a newer
     * one had migrated. They are a gateway's still; {@code 'on'} under another application name is not.
     */
    @Test
    void aSessionOfAnEarlierVersionIsStillAGatewaysAndOnAloneIsNot() throws SQLException {
        try (Connection session = database.dataSource().getConnection()) {
            try {
                session.createStatement().execute("SET fencegate.gateway = 'on'");
                for (String earlier : new String[] {"fencegate", "fencegate/public"}) {
                    session.createStatement().execute("SET application_name = '" + earlier + "'");
                    assertThat(triggerFunctionCalls(session)).as("a session of an earlier version, named %s", earlier).isZero();
                }
                for (String other : new String[] {"psql", "fencegatex", ""}) {
                    session.createStatement().execute("SET application_name = '" + other + "'");
                    assertThat(triggerFunctionCalls(session)).as("'on' set by hand under the name '%s'", other).isEqualTo(3);
                }
            } finally {
                markAsGateway(session);
                session.createStatement().execute("RESET application_name");
            }
        }
    }

    /** The schema is named in the statement that marks each session: spelt like an SQL keyword, it is quoted there. */
    @Test
    void aSchemaSpeltLikeAnSqlKeywordStillGetsMarkedSessions() throws SQLException {
        try (FenceDatabase keyword = FenceDatabase.open(TestPostgres.config("select"))) {
            keyword.migrate();
            try (Connection session = keyword.dataSource().getConnection(); Statement sql = session.createStatement();
                 ResultSet mark = sql.executeQuery("SELECT mark FROM gateway_mark")) {
                mark.next();
                assertThat(gatewaySetting(session)).isEqualTo(mark.getString(1));
            }
        }
    }

    /** The resources the notices this session has received, within a second, name. */
    private static List<String> heard(Connection listener) throws SQLException {
        List<String> resources = new ArrayList<>();
        PGNotification[] notices = listener.unwrap(PGConnection.class).getNotifications(1_000);
        for (PGNotification notice : notices == null ? new PGNotification[0] : notices) {
            resources.add(notice.getParameter());
        }
        return resources;
    }

    /** Gives a pooled session the gateway's mark back, as the pool's sessions start. */
    private static void markAsGateway(Connection session) throws SQLException {
        session.createStatement().execute("SELECT set_config('fencegate.gateway', mark, false) FROM gateway_mark");
    }

    /** Calls of the fence tables' trigger functions this session has made and not yet reported. */
    private static long functionCalls(Statement sql) throws SQLException {
        try (ResultSet calls = sql.executeQuery(
                "SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions WHERE funcname LIKE 'fence%'")) {
            calls.next();
            return calls.getLong(1);
        }
    }

    /** Creates, raises and withdraws a fence's rows in a transaction that is rolled back, counting trigger function calls. */
    private static long triggerFunctionCalls(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        try (Statement sql = connection.createStatement()) {
            sql.execute("SET LOCAL track_functions = 'pl'");
            // Counts of earlier transactions may not be reported yet (at most once a second): only this one's.
            long before = functionCalls(sql);
            String key = "'/trigger/" + UUID.randomUUID() + "'";
            sql.execute("INSERT INTO fence (resource, token) VALUES (" + key + ", 1)");
            sql.execute("UPDATE fence SET token = 2 WHERE resource = " + key);
            sql.execute("INSERT INTO fence_inflight VALUES (" + key + ", gen_random_uuid(), 2, now(), 1)");
            sql.execute("DELETE FROM fence_inflight WHERE resource = " + key);
            return functionCalls(sql) - before;
        } finally {
            connection.rollback();
            connection.setAutoCommit(true);
        }
    }

    @Test
    void aStoreThatCannotReachItsDatabaseThrowsUnavailableNamingTheResource() {
        FenceDatabase closed = TestPostgres.migrated(getClass().getSimpleName() + "_closed");
        closed.close();
        PostgresFenceStore unreachable = new PostgresFenceStore(closed.dataSource());
        ResourceKey key = new ResourceKey("/unreachable");

        assertThatThrownBy(() -> unreachable.admit(new FenceClaim(key, new FencingToken(1), Optional.empty())))
                .isInstanceOf(FenceStoreUnavailableException.class)
                .hasMessageContaining("/unreachable");
        assertThatThrownBy(() -> unreachable.read(key))
                .isInstanceOf(FenceStoreUnavailableException.class)
                .hasMessageContaining("/unreachable");
    }

    @Test
    void raisesInOneBatchGoInTogetherAndTheHighestClaimPerResourceWins() {
        String batch = "/batch/" + UUID.randomUUID();
        ResourceKey one = new ResourceKey(batch + "/one");
        ResourceKey two = new ResourceKey(batch + "/two");
        ResourceKey three = new ResourceKey(batch + "/three");
        store.admit(new FenceClaim(two, new FencingToken(3), Optional.empty()));

        List<FenceDecision> decisions = store.admitAll(List.of(
                new FenceClaim(one, new FencingToken(5), Optional.empty()),
                new FenceClaim(two, new FencingToken(7), Optional.empty()),
                new FenceClaim(one, new FencingToken(6), Optional.empty()),
                new FenceClaim(three, new FencingToken(2), Optional.of(new Holder("a"))),
                new FenceClaim(three, new FencingToken(2), Optional.of(new Holder("b")))));

        assertThat(decisions).extracting(FenceDecision::kind).containsExactly(
                FenceDecision.Kind.STALE, FenceDecision.Kind.ADMITTED, FenceDecision.Kind.ADMITTED,
                FenceDecision.Kind.ADMITTED, FenceDecision.Kind.REUSED);
        assertThat(((FenceDecision.Admitted) decisions.get(1)).previous()).contains(new FencingToken(3));
        assertThat(store.read(one).map(Fence::token)).contains(new FencingToken(6));
        assertThat(store.read(two).map(Fence::token)).contains(new FencingToken(7));
        assertThat(store.read(three).flatMap(Fence::holder)).contains(new Holder("a"));
    }

    @Test
    void batchesRaisingTheSameResourcesAtOnceNeverDeadlock() throws Exception {
        List<ResourceKey> keys = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            keys.add(new ResourceKey("/deadlock/" + UUID.randomUUID()));
        }
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<FenceDecision>>> batches = new ArrayList<>();
            for (int round = 1; round <= 40; round++) {
                List<FenceClaim> claims = new ArrayList<>();
                for (ResourceKey key : keys) {
                    claims.add(new FenceClaim(key, new FencingToken(round), Optional.empty()));
                }
                // Each batch names the resources in another order.
                Collections.shuffle(claims, new Random(round));
                batches.add(threads.submit(() -> store.admitAll(claims)));
            }
            for (Future<List<FenceDecision>> batch : batches) {
                assertThat(batch.get(30, TimeUnit.SECONDS)).extracting(FenceDecision::kind)
                        .doesNotContain(FenceDecision.Kind.UNAVAILABLE);
            }
        } finally {
            threads.shutdownNow();
        }
        for (ResourceKey key : keys) {
            assertThat(store.read(key).map(Fence::token)).contains(new FencingToken(40));
        }
    }

    /**
     * Claims at or below their fence are judged by the same statement that raises the others, and
     * must cost what a read costs: no row lock, no commit to wait for. Without the snapshot filter
     * the upsert would lock the row (set its xmax) even though it changes nothing.
     */
    @Test
    void claimsAtOrBelowTheirFenceWriteNothingWhileAnotherInTheBatchRaises() throws SQLException {
        ResourceKey held = recorded(4);
        ResourceKey raised = recorded(2);
        String before = rowVersion(held);

        List<FenceDecision> decisions = store.admitAll(List.of(
                new FenceClaim(held, new FencingToken(4), Optional.of(new Holder("a"))),
                new FenceClaim(raised, new FencingToken(9), Optional.of(new Holder("a"))),
                new FenceClaim(held, new FencingToken(3), Optional.empty())));

        assertThat(decisions).extracting(FenceDecision::kind).containsExactly(
                FenceDecision.Kind.ADMITTED, FenceDecision.Kind.ADMITTED, FenceDecision.Kind.STALE);
        assertThat(((FenceDecision.Admitted) decisions.get(0)).raised()).isFalse();
        assertThat(((FenceDecision.Admitted) decisions.get(1)).previous()).contains(new FencingToken(2));
        assertThat(rowVersion(held)).isEqualTo(before);
        assertThat(store.read(raised).map(Fence::token)).contains(new FencingToken(9));
    }

    @Test
    void aBatchOfRaisesCommitsOnceAndABatchAtItsFencesNotAtAll() {
        String batch = "/commits/" + UUID.randomUUID();
        List<FenceClaim> claims = List.of(new FenceClaim(new ResourceKey(batch + "/a"), new FencingToken(1), Optional.empty()),
                new FenceClaim(new ResourceKey(batch + "/b"), new FencingToken(2), Optional.empty()),
                new FenceClaim(new ResourceKey(batch + "/c"), new FencingToken(3), Optional.empty()));
        long before = store.commits();

        assertThat(store.admitAll(claims)).extracting(FenceDecision::kind).containsOnly(FenceDecision.Kind.ADMITTED);
        assertThat(store.commits() - before).isEqualTo(1);
        assertThat(store.admitAll(claims)).extracting(FenceDecision::kind).containsOnly(FenceDecision.Kind.ADMITTED);
        assertThat(store.commits() - before).isEqualTo(1);
    }

    /**
     * A named claim at a fence its batch's own read shows naming that holder is one statement, as
     * a claim at its fence is without holders: only a fence the read shows unnamed is worth the
     * statement that records its first holder.
     */
    @Test
    void aHolderAtAFenceThatNamesItCostsNoStatementToRecordIt() {
        List<String> statements = new ArrayList<>();
        PostgresFenceStore watched = new PostgresFenceStore(statementsWatched(database.dataSource(), statements));
        String batch = "/named/" + UUID.randomUUID();
        FenceClaim named = new FenceClaim(new ResourceKey(batch + "/a"), new FencingToken(5), Optional.of(new Holder("a")));
        FenceClaim unnamed = new FenceClaim(new ResourceKey(batch + "/b"), new FencingToken(5), Optional.empty());
        watched.admitAll(List.of(named, unnamed));
        FenceClaim firstHolder = new FenceClaim(unnamed.resource(), unnamed.token(), Optional.of(new Holder("b")));

        statements.clear();
        assertThat(watched.admitAll(List.of(named))).extracting(FenceDecision::kind).containsExactly(FenceDecision.Kind.ADMITTED);
        assertThat(statements).hasSize(1);

        statements.clear();
        assertThat(watched.admitAll(List.of(named, firstHolder))).extracting(FenceDecision::kind)
                .containsExactly(FenceDecision.Kind.ADMITTED, FenceDecision.Kind.ADMITTED);
        assertThat(statements).hasSize(2);
        assertThat(statements.get(1)).contains("SET holder");
        assertThat(watched.read(unnamed.resource()).flatMap(Fence::holder)).contains(new Holder("b"));
    }

    /** Records the text of every statement prepared through {@code dataSource}. */
    private static DataSource statementsWatched(DataSource dataSource, List<String> statements) {
        ClassLoader loader = PostgresFenceStoreTest.class.getClassLoader();
        return (DataSource) Proxy.newProxyInstance(loader, new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = Proxies.invoke(method, dataSource, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    return Proxy.newProxyInstance(loader, new Class<?>[] {Connection.class}, (c, m, a) -> {
                        if (m.getName().equals("prepareStatement") || m.getName().equals("createStatement")) {
                            statements.add(a == null ? "(statement)" : (String) a[0]);
                        }
                        return Proxies.invoke(m, result, a);
                    });
                });
    }


    /**
     * Raises reach the instances they concern, and cost nothing to announce otherwise: a raise
     * with no other instance registered below it (here: creating the fence, then raising it) is
     * announced to nobody; one that finds another instance registered below it waits and
     * announces its token, once.
     */
    @Test
    void aRaiseIsAnnouncedOnlyWhenAnotherInstanceIsRegisteredBelowIt() throws SQLException {
        ResourceKey key = new ResourceKey("/announce/" + UUID.randomUUID());
        try (Connection listening = database.dataSource().getConnection()) {
            try (var listen = listening.createStatement()) {
                listen.execute("LISTEN " + InflightListener.CHANNEL);
            }
            try {
                store.admit(new FenceClaim(key, new FencingToken(1), Optional.empty()));
                store.admit(new FenceClaim(key, new FencingToken(2), Optional.empty()));
                try (PreparedStatement row = listening.prepareStatement("INSERT INTO fence_inflight "
                        + "(resource, instance, min_token, until, generation) VALUES (?, ?, 2, now() + interval '1 minute', 1)")) {
                    row.setString(1, key.value());
                    row.setObject(2, UUID.randomUUID());
                    row.executeUpdate();
                }
                assertThat(store.admit(new FenceClaim(key, new FencingToken(3), Optional.empty())))
                        .isInstanceOf(FenceDecision.Draining.class);

                assertThat(heard(listening, key)).containsExactly(InflightListener.notice(key, 3));
            } finally {
                try (var unlisten = listening.createStatement()) {
                    unlisten.execute("UNLISTEN *");
                }
            }
        }
    }

    /** Notices for {@code key} that arrive within a second of each other. */
    private static List<String> heard(Connection listening, ResourceKey key) throws SQLException {
        List<String> heard = new ArrayList<>();
        PGNotification[] batch;
        while ((batch = listening.unwrap(PGConnection.class).getNotifications(1000)) != null && batch.length > 0) {
            for (PGNotification notification : batch) {
                if (notification.getParameter().startsWith(key.value())) {
                    heard.add(notification.getParameter());
                }
            }
        }
        return heard;
    }

    /** The row's creating and locking transactions: any write or lock changes them. */
    private static String rowVersion(ResourceKey key) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT xmin::text || '/' || xmax::text FROM fence WHERE resource = ?")) {
            statement.setString(1, key.value());
            try (var row = statement.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        }
    }

    private static ResourceKey recorded(long token) {
        ResourceKey key = new ResourceKey("/trigger/" + UUID.randomUUID());
        store.admit(new FenceClaim(key, new FencingToken(token), Optional.of(new Holder("a"))));
        return key;
    }

    private static int execute(String sql, ResourceKey key) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            if (key != null) {
                statement.setString(1, key.value());
            }
            return statement.executeUpdate();
        }
    }
}
