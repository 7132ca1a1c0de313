package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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

    @Test
    void aSchemaWithoutTheLeasesTableSaysToMigrateIt() {
        String schema = TestDatabase.newSchema("unmigrated");
        DataSource unmigrated = PostgresLeaseStore.dataSource(TestDatabase.URL, "postgres", "", schema, Duration.ofSeconds(5));
        assertThatThrownBy(() -> new PostgresLeaseStore(unmigrated).acquire(name(), "worker-a", LONG))
                .isInstanceOf(LeaseStoreException.class).hasMessageContaining("PostgresLeaseStore.migrate(dataSource, schema) first");
    }

    @Test
    void anUnreachableDatabaseIsALeaseStoreException() {
        DataSource nowhere = PostgresLeaseStore.dataSource("jdbc:postgresql://127.0.0.1:1/none", "postgres", "", "x",
                Duration.ofSeconds(1));
        assertThatThrownBy(() -> new PostgresLeaseStore(nowhere).acquire(name(), "worker-a", LONG))
                .isInstanceOf(LeaseStoreException.class).hasMessageContaining("acquire lease");
    }
}
