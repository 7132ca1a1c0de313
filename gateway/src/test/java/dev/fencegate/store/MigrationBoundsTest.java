package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Migrations run on connections of their own. Under the pool's bounds, meant for fence checks, a
 * migration that rewrites a large fence table (V7 rebuilds its index) was cancelled at the
 * statement timeout and tried again at every check, forever, holding the table's lock each time.
 */
class MigrationBoundsTest {

    private static final Duration CHECK_TIMEOUT = Duration.ofMillis(100);
    private FenceDatabase database;
    private DatabaseConfig config;

    @BeforeEach
    void openAtTheVersionBeforeTheIndexRebuild() throws SQLException {
        config = TestPostgres.config(TestPostgres.newSchema(MigrationBoundsTest.class.getSimpleName()), CHECK_TIMEOUT);
        database = FenceDatabase.open(config);
        Flyway.configure().dataSource(database.dataSource()).locations("classpath:db/migration")
                .schemas(config.schema()).defaultSchema(config.schema()).createSchemas(true).target("6").load().migrate();
        // An index whose every entry takes 10 ms to compute: rebuilding it for 150 rows takes 1.5 s,
        // longer than the pool's statement timeout (the check timeout and one second).
        try (Connection connection = DriverManager.getConnection(config.url(), config.user(), config.password());
             Statement sql = connection.createStatement()) {
            sql.execute("SET search_path TO " + config.schema());
            sql.execute("CREATE FUNCTION slow_key(k text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS "
                    + "$$ BEGIN PERFORM pg_sleep(0.01); RETURN k; END $$");
            sql.execute("INSERT INTO fence (resource, token) SELECT '/b/k' || i, i FROM generate_series(1, 150) AS i");
            sql.execute("CREATE INDEX fence_slow_key ON fence (slow_key(resource))");
        }
    }

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void aMigrationLongerThanAFenceChecksStatementTimeoutCompletes() throws SQLException {
        MigrateResult result = database.migrate();

        assertThat(result.success).isTrue();
        assertThat(result.targetSchemaVersion).isNotBlank();
        try (Connection connection = database.dataSource().getConnection();
             Statement sql = connection.createStatement();
             ResultSet row = sql.executeQuery("SELECT count(*), max(token) FROM fence")) {
            row.next();
            assertThat(row.getLong(1)).isEqualTo(150);
            assertThat(row.getLong(2)).isEqualTo(150);
        }
    }

    /**
     * A gateway whose host is lost mid-migration leaves no open transaction holding the fence
     * table's lock for hours: its migration sessions ask the database to probe their client after
     * 10 s of silence, every 5 s, and end the session after 3 unanswered probes, or once data it
     * sent has gone unacknowledged for 25 s.
     */
    @Test
    void migrationSessionsHaveTheDatabaseProbeTheirGatewaySoALostHostReleasesItsLocks() throws SQLException {
        try (var sessions = database.migrationSessions(); Connection connection = sessions.getConnection();
             Statement sql = connection.createStatement();
             ResultSet row = sql.executeQuery("SELECT current_setting('tcp_keepalives_idle'), current_setting('tcp_keepalives_interval'),"
                     + " current_setting('tcp_keepalives_count'), current_setting('tcp_user_timeout'), current_setting('statement_timeout')")) {
            row.next();
            assertThat(List.of(row.getString(1), row.getString(2), row.getString(3), row.getString(4), row.getString(5)))
                    .as("over TCP, as the tests connect").containsExactly("10", "5", "3", "25000", "0");
        }
    }
}
