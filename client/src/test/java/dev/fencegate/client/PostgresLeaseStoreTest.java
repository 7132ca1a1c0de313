package dev.fencegate.client;

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
