package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.testing.TestPostgres;
import java.time.Duration;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

/** The start names the schema's version, whether it migrated now or found the schema current. */
class SchemaLineTest {

    @Test
    void aStartThatMigratesNothingNamesTheVersionItFound() {
        DatabaseConfig config = TestPostgres.config(TestPostgres.newSchema(SchemaLineTest.class.getSimpleName()), Duration.ofSeconds(2));
        try (FenceDatabase database = FenceDatabase.open(config)) {
            MigrateResult first = database.migrate();
            MigrateResult again = database.migrate();

            assertThat(first.migrationsExecuted).isPositive();
            assertThat(FenceStoreMonitor.schemaLine(first))
                    .isEqualTo("Fence schema at version " + first.targetSchemaVersion + " (" + first.migrationsExecuted
                            + " migrations applied now)");
            assertThat(FenceStoreMonitor.schemaLine(again))
                    .isEqualTo("Fence schema at version " + first.targetSchemaVersion + " (0 migrations applied now)");
        }
    }
}
