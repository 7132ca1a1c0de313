package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

/** A newcomer's machine may run no PostgreSQL: the demo and the tests then start an embedded one and say so. */
class LocalPostgresIT {

    @Test
    void anEmbeddedPostgresStartsWhenNoneAnswersAndTheOutputSaysWhich() throws Exception {
        try (LocalPostgres postgres = LocalPostgres.connectOrStart("jdbc:postgresql://127.0.0.1:1/nowhere", "postgres", "")) {
            assertThat(postgres.description()).startsWith("embedded PostgreSQL").contains("none answered at jdbc:postgresql://127.0.0.1:1/nowhere");
            try (Connection connection = DriverManager.getConnection(postgres.url(), postgres.user(), postgres.password());
                 ResultSet row = connection.createStatement().executeQuery("SELECT 1")) {
                assertThat(row.next()).isTrue();
            }
        }
    }

    @Test
    void theConfiguredPostgresIsUsedWhenItAnswers() {
        String url = dev.fencegate.testing.TestPostgres.server().url();
        try (LocalPostgres postgres = LocalPostgres.connectOrStart(url, "postgres", "")) {
            assertThat(postgres.description()).isEqualTo("PostgreSQL at " + url);
            assertThat(postgres.url()).isEqualTo(url);
        }
    }
}
