package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.GatewayConfigReader;
import dev.fencegate.config.GatewayOptions;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** What one gateway costs PostgreSQL in connections, so an operator can size max_connections for N of them. */
class ConnectionBudgetIT {

    @Command(name = "connection-budget-test")
    static final class Wrapper {
        @Mixin
        GatewayOptions options = new GatewayOptions();
    }

    @Test
    void aGatewayWithDefaultSettingsHoldsFourConnections() throws SQLException {
        String schema = TestPostgres.newSchema("connection_budget");
        DatabaseConfig test = TestPostgres.config(schema);
        Wrapper wrapper = new Wrapper();
        new CommandLine(wrapper).parseArgs("--upstream", "http://127.0.0.1:9", "--db-url", test.url(), "--db-schema", schema,
                "--db-user", test.user());
        GatewayConfig defaults = GatewayConfigReader.read(wrapper.options.settings(Map.of()));

        try (FenceDatabase database = FenceDatabase.open(defaults.database())) {
            // Two fence-check connections by default, one for the notice listener, one for the reconciler.
            // Both counts at once: PostgreSQL shows a connection while the pool is still adding it.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(connectionsOf(schema)).isEqualTo(4);
                assertThat(database.pool().getTotalConnections()).isEqualTo(4);
            });
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(connectionsOf(schema)).isZero());
    }

    private static int connectionsOf(String schema) throws SQLException {
        var server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             PreparedStatement count = connection.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?")) {
            count.setString(1, "fencegate/" + schema);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }
}
