package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A migration, once on main, is never edited or renamed: a fence database it was applied to
 * would fail Flyway's validation on every later version (a checksum or description mismatch), and
 * that version would refuse every write. {@code migrations/released-checksums.txt} records each
 * migration's checksum and description as Flyway computes them; a new migration adds its line.
 */
class ReleasedMigrationsTest {

    static final Path RECORD = Path.of("..", "migrations", "released-checksums.txt");

    @Test
    void noMigrationOnMainIsEverEditedAndEachIsRecorded() throws IOException, SQLException {
        Map<String, String> recorded = new LinkedHashMap<>();
        for (String line : Files.readAllLines(RECORD)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                String[] fields = line.trim().split("\\s+", 2);
                recorded.put(fields[0], fields[1]);
            }
        }
        Map<String, String> applied = new LinkedHashMap<>();
        try (FenceDatabase database = TestPostgres.migrated("released_migrations");
             Connection connection = database.dataSource().getConnection();
             Statement sql = connection.createStatement();
             ResultSet row = sql.executeQuery("SELECT version, checksum, description FROM flyway_schema_history"
                     + " WHERE version IS NOT NULL ORDER BY installed_rank")) {
            while (row.next()) {
                applied.put(row.getString(1), row.getInt(2) + " " + row.getString(3));
            }
        }

        assertThat(applied).as("checksums and descriptions of the migrations, as Flyway computes them, against %s: a line that"
                + " differs is a migration edited after it went out (write a new migration instead); a version missing"
                + " there is a new migration, whose line is to be added", RECORD).isEqualTo(recorded);
    }
}
