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
 * A migration, once on main, is never edited: a fence database it was applied to would fail
 * Flyway's validation on every later version (a checksum mismatch), and that version would refuse
 * every write. {@code migrations/released-checksums.txt} records each migration's checksum as
 * Flyway computes it; a new migration adds its line.
 */
class ReleasedMigrationsTest {

    static final Path RECORD = Path.of("..", "migrations", "released-checksums.txt");

    @Test
    void noMigrationOnMainIsEverEditedAndEachIsRecorded() throws IOException, SQLException {
        Map<String, Integer> recorded = new LinkedHashMap<>();
        for (String line : Files.readAllLines(RECORD)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                String[] fields = line.trim().split("\\s+");
                recorded.put(fields[0], Integer.valueOf(fields[1]));
            }
        }
        Map<String, Integer> applied = new LinkedHashMap<>();
        try (FenceDatabase database = TestPostgres.migrated("released_migrations");
             Connection connection = database.dataSource().getConnection();
             Statement sql = connection.createStatement();
             ResultSet row = sql.executeQuery("SELECT version, checksum FROM flyway_schema_history"
                     + " WHERE version IS NOT NULL ORDER BY installed_rank")) {
            while (row.next()) {
                applied.put(row.getString(1), row.getInt(2));
            }
        }

        assertThat(applied).as("checksums of the migrations, as Flyway computes them, against %s: a line whose checksum"
                + " differs is a migration edited after it went out (write a new migration instead); a version missing"
                + " there is a new migration, whose line is to be added", RECORD).isEqualTo(recorded);
    }
}
