package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lease store contract against the real PostgreSQL, in a schema of its own, and what the table itself refuses. */
class PostgresLeaseStoreTest extends LeaseStoreContract {

    private static DataSource database;

    @BeforeAll
    static void migrate() {
        database = TestDatabase.migrated(PostgresLeaseStoreTest.class.getSimpleName());
    }

    @Override
    protected LeaseStore store() {
        return new PostgresLeaseStore(database);
    }

    @Test
    void theDatabaseRefusesToLowerATokenOrDeleteALease() throws SQLException {
        String job = name();
        store().release(store().acquire(job, "worker-a", LONG).orElseThrow());
        store().acquire(job, "worker-a", LONG).orElseThrow();
        try (Connection connection = database.getConnection(); Statement sql = connection.createStatement()) {
            assertThatThrownBy(() -> sql.executeUpdate("UPDATE leases SET token = token - 1 WHERE name = '" + job + "'"))
                    .hasMessageContaining("cannot go down from 2 to 1");
            assertThatThrownBy(() -> sql.executeUpdate("DELETE FROM leases WHERE name = '" + job + "'"))
                    .hasMessageContaining("never deleted");
        }
    }

    @Test
    void theDatabaseRefusesToTruncateOrRenameALeaseAndKeepsRefusingInReplicaSessions() throws SQLException {
        String job = name();
        store().release(store().acquire(job, "worker-a", LONG).orElseThrow());
        Lease second = store().acquire(job, "worker-a", LONG).orElseThrow();
        try (Connection connection = database.getConnection(); Statement sql = connection.createStatement()) {
            assertThatThrownBy(() -> sql.executeUpdate("TRUNCATE leases")).hasMessageContaining("never removed by TRUNCATE");
            assertThatThrownBy(() -> sql.executeUpdate("UPDATE leases SET name = name || '-old' WHERE name = '" + job + "'"))
                    .hasMessageContaining("cannot be renamed");
            sql.execute("SET session_replication_role = replica");
            try {
                assertThatThrownBy(() -> sql.executeUpdate("DELETE FROM leases WHERE name = '" + job + "'"))
                        .hasMessageContaining("never deleted");
                assertThatThrownBy(() -> sql.executeUpdate("UPDATE leases SET token = 1 WHERE name = '" + job + "' AND token > 1"))
                        .hasMessageContaining("cannot go down");
                assertThatThrownBy(() -> sql.executeUpdate("TRUNCATE leases")).hasMessageContaining("never removed by TRUNCATE");
            } finally {
                sql.execute("RESET session_replication_role");
            }
        }
        store().release(second);
        assertThat(store().acquire(job, "worker-b", LONG).orElseThrow().token()).isEqualTo(3);
    }

    /** The README's grants for a worker role that does not own the table, whose triggers it then cannot turn off. */
    @Test
    void aWorkerRoleWithTheReadmesGrantsFindsTheTableMigratedAndTakesLeases() throws SQLException {
        String schema = TestDatabase.newSchema("worker_role");
        DataSource owner = PostgresLeaseStore.dataSource(TestDatabase.URL, "postgres", "", schema, Duration.ofSeconds(5));
        PostgresLeaseStore.migrate(owner, schema);
        String role = "fencegate_worker_" + ProcessHandle.current().pid();
        try (Connection connection = owner.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE ROLE " + role + " LOGIN");
            try {
                statement.execute("GRANT USAGE ON SCHEMA " + schema + " TO " + role);
                statement.execute("GRANT SELECT, INSERT, UPDATE ON " + schema + ".leases TO " + role);
                statement.execute("GRANT SELECT ON " + schema + ".flyway_client_history TO " + role);
                DataSource worker = PostgresLeaseStore.dataSource(TestDatabase.URL, role, "", schema, Duration.ofSeconds(5));

                PostgresLeaseStore.migrate(worker, schema); // what every worker runs at its start
                LeaseStore leases = new PostgresLeaseStore(worker);
                Lease lease = leases.acquire(name(), "worker-a", LONG).orElseThrow();
                assertThat(leases.renew(lease, LONG)).isTrue();
                assertThat(leases.release(lease)).isTrue();
                try (Connection asWorker = worker.getConnection(); Statement workerStatement = asWorker.createStatement()) {
                    assertThatThrownBy(() -> workerStatement.execute("ALTER TABLE leases DISABLE TRIGGER USER"))
                            .as("only the owner turns the triggers off").isInstanceOf(SQLException.class);
                }
            } finally {
                statement.execute("DROP OWNED BY " + role);
                statement.execute("DROP ROLE " + role);
            }
        }
    }

    /**
     * A contender's acquire locks the lease's row, granting nothing, until it commits. Paused
     * between its statement and its commit (a stopped process), it held the holder's renewals off
     * until the lease ran out, and every other acquire with them. Its session now ends once idle in
     * the transaction for {@link PostgresLeaseStore#IDLE_IN_TRANSACTION}, and the holder renews.
     */
    @Test
    void aContenderPausedBeforeItsCommitDoesNotHoldTheHoldersRenewalsOff() throws Exception {
        String schema = TestDatabase.newSchema("paused_contender");
        DataSource holderSide = PostgresLeaseStore.dataSource(TestDatabase.URL, "postgres", "", schema, Duration.ofSeconds(2));
        PostgresLeaseStore.migrate(holderSide, schema);
        DataSource pausing = PostgresLeaseStore.dataSource(TestDatabase.URL, "postgres", "", schema, Duration.ofSeconds(2));
        CountDownLatch pausedBeforeCommit = new CountDownLatch(1);
        DataSource contenderSide = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = method.invoke(pausing, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection connection = (Connection) result;
                    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, (c, m, a) -> {
                        if (m.getName().equals("commit")) {
                            pausedBeforeCommit.countDown();
                            Thread.sleep(4_000);
                        }
                        try {
                            return m.invoke(connection, a);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
                });
        PostgresLeaseStore holderStore = new PostgresLeaseStore(holderSide);
        String job = name();
        Lease lease = holderStore.acquire(job, "holder", LONG).orElseThrow();

        CompletableFuture<Optional<Lease>> contender = CompletableFuture.supplyAsync(
                () -> new PostgresLeaseStore(contenderSide).acquire(job, "contender", LONG));
        assertThat(pausedBeforeCommit.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(holderStore.renew(lease, LONG)).as("the holder's renewal while the contender is paused").isTrue();
        assertThatThrownBy(() -> contender.get(20, TimeUnit.SECONDS)).as("the paused contender's session was ended")
                .hasCauseInstanceOf(LeaseStoreException.class);
        assertThat(holderStore.renew(lease, LONG)).isTrue();
    }

    /** A ttl the guard cannot count would be granted and then fail the holder, the lease taken for as long: refused first. */
    @Test
    void aTtlBeyondTheLongestIsRefusedBeforeAnyGrant() {
        String job = name();
        assertThatThrownBy(() -> store().acquire(job, "worker-a", Duration.ofDays(300 * 365)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 36500 days");
        assertThat(store().acquire(job, "worker-b", LONG)).as("the lease is still free").isPresent();
    }

    /**
     * The store counts a grant's time in whole milliseconds: a ttl with a part below one would be
     * shorter there than the holder counts it, so the holder would hold on after the store let a
     * newer holder in. Refused before any grant.
     */
    @Test
    void aTtlOfPartMillisecondsIsRefusedBeforeAnyGrant() {
        String job = name();
        assertThatThrownBy(() -> store().acquire(job, "worker-a", Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole milliseconds");
        assertThatThrownBy(() -> store().acquire(job, "worker-a", Duration.ofSeconds(30).plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole milliseconds");
        assertThat(store().acquire(job, "worker-b", LONG)).as("the lease is still free").isPresent();
    }

    /**
     * A holder the Fencing-Holder header cannot carry would have every write refused: it is refused
     * before any grant, which would otherwise keep the lease from every other holder for its ttl.
     */
    @Test
    void aHolderTheFencingHolderHeaderCannotCarryIsRefusedBeforeAnyGrant() {
        String job = name();
        List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        LeaseStore counting = new LeaseStore() {
            @Override
            public Optional<Lease> acquire(String name, String holder, Duration ttl) {
                asked.add(holder);
                return store().acquire(name, holder, ttl);
            }

            @Override
            public boolean renew(Lease lease, Duration ttl) {
                return store().renew(lease, ttl);
            }

            @Override
            public boolean release(Lease lease) {
                return store().release(lease);
            }
        };
        for (String holder : List.of("worker 1", "worker-\u00e9", "worker-\t1", "w".repeat(201), "")) {
            assertThatThrownBy(() -> store().acquire(job, holder, LONG)).as(holder).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("visible ASCII characters");
            assertThatThrownBy(() -> HeldLease.acquire(counting, job, holder, LeaseTiming.of(LONG))).as(holder)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("visible ASCII characters");
        }
        assertThat(asked).as("a lease store that grants any holder is not asked").isEmpty();
        assertThat(store().acquire(job, "w".repeat(200), LONG)).as("the lease is still free").isPresent();
    }

    /** A token at the largest a bigint holds cannot be granted above: the error says so, not only "bigint out of range". */
    @Test
    void aLeaseWhoseTokenIsAtTheLargestSaysItCannotBeGrantedAgain() throws SQLException {
        String job = name();
        store().release(store().acquire(job, "worker-a", LONG).orElseThrow());
        try (Connection connection = database.getConnection(); Statement sql = connection.createStatement()) {
            sql.executeUpdate("UPDATE leases SET token = " + Long.MAX_VALUE + " WHERE name = '" + job + "'");
        }
        assertThatThrownBy(() -> store().acquire(job, "worker-b", LONG)).isInstanceOf(LeaseStoreException.class)
                .hasMessageContaining("cannot be granted again");
    }

    @Test
    void aSchemaWithoutTheLeasesTableSaysToMigrateIt() {
        String schema = TestDatabase.newSchema("unmigrated");
        DataSource unmigrated = PostgresLeaseStore.dataSource(TestDatabase.URL, "postgres", "", schema, Duration.ofSeconds(5));
        assertThatThrownBy(() -> new PostgresLeaseStore(unmigrated).acquire(name(), "worker-a", LONG))
                .isInstanceOf(LeaseStoreException.class).hasMessageContaining("PostgresLeaseStore.migrate(dataSource, schema) first");
    }

    /**
     * PostgreSQL reads a lock_timeout or statement_timeout of 0, which anything under a millisecond
     * becomes, as no bound: a renewal behind a lock would give up at the client and leave its session
     * waiting on the server. Such a timeout, or one under the connect timeout's whole second, or past
     * the longest the server takes, is refused before any connection is made (none could be, here).
     */
    @Test
    void aTimeoutThatWouldNotBoundTheServersWaitIsRefusedBeforeAnyConnection() {
        for (Duration timeout : List.of(Duration.ZERO, Duration.ofNanos(999_999), Duration.ofMillis(999), Duration.ofSeconds(-5),
                Duration.ofMillis(Integer.MAX_VALUE).plusMillis(1))) {
            assertThatThrownBy(() -> PostgresLeaseStore.dataSource("jdbc:postgresql://127.0.0.1:1/none", "postgres", "", "x", timeout))
                    .as(timeout.toString()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("timeout: " + timeout + " (expected PT1S to PT596H31M23.647S");
        }
        assertThat(PostgresLeaseStore.dataSource("jdbc:postgresql://127.0.0.1:1/none", "postgres", "", "x", Duration.ofSeconds(1)))
                .as("a second is bound enough").isNotNull();
    }

    @Test
    void anUnreachableDatabaseIsALeaseStoreException() {
        DataSource nowhere = PostgresLeaseStore.dataSource("jdbc:postgresql://127.0.0.1:1/none", "postgres", "", "x",
                Duration.ofSeconds(1));
        assertThatThrownBy(() -> new PostgresLeaseStore(nowhere).acquire(name(), "worker-a", LONG))
                .isInstanceOf(LeaseStoreException.class).hasMessageContaining("acquire lease");
    }
}
