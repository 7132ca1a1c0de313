package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * Migrations run on connections of their own, made as the pool makes its: a user named in the
 * URL wins over --db-user, as it does for the pool. Had migrations connected as --db-user (its
 * default is postgres), they would have made the tables under another owner than the sessions
 * that use them, or failed to log in at all.
 */
class MigrationUserTest {

    private static final String URL_USER = "fencegate_url_user";

    @Test
    void migrationsConnectAsThePoolDoesWithTheUserTheUrlNames() throws SQLException {
        var server = TestPostgres.server();
        try (Connection admin = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement statement = admin.createStatement()) {
            statement.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + URL_USER + "') THEN "
                    + "CREATE ROLE " + URL_USER + " LOGIN SUPERUSER; END IF; END $$");
        }
        String schema = TestPostgres.newSchema(MigrationUserTest.class.getSimpleName());
        DatabaseConfig base = TestPostgres.config(schema);
        String url = base.url() + (base.url().contains("?") ? "&" : "?") + "user=" + URL_USER;
        DatabaseConfig config = new DatabaseConfig(url, schema, "postgres", base.password(), 2, base.checkTimeout());

        try (FenceDatabase database = FenceDatabase.open(config)) {
            database.migrate();
            try (Connection connection = database.dataSource().getConnection();
                 PreparedStatement owner = connection.prepareStatement(
                         "SELECT tableowner, current_user FROM pg_tables WHERE schemaname = ? AND tablename = 'fence'")) {
                owner.setString(1, schema);
                try (ResultSet row = owner.executeQuery()) {
                    assertThat(row.next()).isTrue();
                    assertThat(row.getString(2)).as("the pool's user").isEqualTo(URL_USER);
                    assertThat(row.getString(1)).as("the fence table's owner").isEqualTo(URL_USER);
                }
            }
        }
    }
}
