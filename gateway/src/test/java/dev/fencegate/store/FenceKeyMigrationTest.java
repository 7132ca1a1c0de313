package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Keys used to keep the sub-delimiters percent-encoded ({@code /b/k%3Dv}); they are now literal
 * ({@code /b/k=v}). A fence recorded under the old form must reach the new one, or a stale writer
 * would get through once after an upgrade.
 */
class FenceKeyMigrationTest {

    private FenceDatabase database;
    private String schema;

    @BeforeEach
    void openAtTheVersionBeforeTheChange() {
        schema = TestPostgres.newSchema(FenceKeyMigrationTest.class.getSimpleName());
        database = FenceDatabase.open(TestPostgres.config(schema));
        flyway(database.dataSource()).target("4").load().migrate();
    }

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void aFenceRecordedUnderAnOldSpellingIsCarriedToItsNewKeyNeverLowered() throws SQLException {
        record("/b/k%3Dv", 9, "worker-a");
        record("/b/k=v", 5, null);
        record("/b/x%3A%40y%2A", 3, null);
        record("/b/k=w", 8, "worker-c");
        record("/b/k%3Dw", 2, null);
        record("/b/p%253D", 4, null);
        record("/b/%C3%A9%28", 6, null);

        database.migrate();

        Map<String, String> fences = fences();
        assertThat(fences).containsEntry("/b/k=v", "9 worker-a")
                .containsEntry("/b/x:@y*", "3 null")
                .containsEntry("/b/k=w", "8 worker-c")
                .containsEntry("/b/%C3%A9(", "6 null")
                // An encoded '%' stays what it was: nothing in it is a sub-delimiter's escape.
                .containsEntry("/b/p%253D", "4 null")
                .doesNotContainKey("/b/p%3D")
                // Old rows stay: fence rows are never deleted.
                .containsEntry("/b/k%3Dv", "9 worker-a");
    }

    private org.flywaydb.core.api.configuration.FluentConfiguration flyway(DataSource dataSource) {
        return Flyway.configure().dataSource(dataSource).locations("classpath:db/migration")
                .schemas(schema).defaultSchema(schema).createSchemas(true);
    }

    private void record(String resource, long token, String holder) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO fence (resource, token, holder) VALUES (?, ?, ?)")) {
            insert.setString(1, resource);
            insert.setLong(2, token);
            insert.setString(3, holder);
            insert.executeUpdate();
        }
    }

    private Map<String, String> fences() throws SQLException {
        Map<String, String> fences = new LinkedHashMap<>();
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT resource, token, holder FROM fence ORDER BY resource");
             ResultSet row = select.executeQuery()) {
            while (row.next()) {
                fences.put(row.getString(1), row.getLong(2) + " " + row.getString(3));
            }
        }
        return fences;
    }
}
