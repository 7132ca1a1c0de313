package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.HostPort;
import dev.fencegate.config.Limits;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A start that cannot listen says which setting to change, and changes nothing in the fence database. */
class ListenAddressesTest {

    @Test
    void aPortAnotherProcessHoldsIsRefusedNamingTheSetting() throws IOException {
        try (ServerSocket held = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            HostPort taken = new HostPort("127.0.0.1", held.getLocalPort());

            assertThat(catchThrowable(() -> ListenAddresses.requireFree(new HostPort("127.0.0.1", 0), taken)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--admin-listen: " + taken + " (expected an address this process can listen on");
        }
    }

    /** The configuration compares spellings; the probe binds both at once, so a second spelling of one port is found too. */
    @Test
    void onePortSpeltTwoWaysIsRefused() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        assertThat(catchThrowable(() -> ListenAddresses.requireFree(new HostPort("127.0.0.1", port), new HostPort("localhost", port))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--admin-listen: localhost:" + port
                        + " (expected a port other than --listen 127.0.0.1:" + port + "'s, which names the same port of this host");
        ListenAddresses.requireFree(new HostPort("127.0.0.1", port), new HostPort("127.0.0.1", 0));
    }

    @Test
    void aStartThatCannotListenLeavesTheFenceDatabaseUntouched() throws IOException, SQLException {
        String schema = TestPostgres.newSchema("listen_taken");
        DatabaseConfig database = TestPostgres.config(schema);
        try (ServerSocket held = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            GatewayConfig config = config(new HostPort("127.0.0.1", held.getLocalPort()), new HostPort("127.0.0.1", 0), database);

            assertThat(catchThrowable(() -> Gateway.start(config))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--listen: 127.0.0.1:" + held.getLocalPort());
        }
        try (Connection connection = DriverManager.getConnection(database.url(), database.user(), database.password());
             PreparedStatement schemas = connection.prepareStatement("SELECT count(*) FROM pg_namespace WHERE nspname = ?")) {
            schemas.setString(1, schema);
            try (ResultSet row = schemas.executeQuery()) {
                row.next();
                assertThat(row.getLong(1)).as("schema " + schema + " made by a start that never served").isZero();
            }
        }
    }

    /** Every request would come back to the gateway, round and round until its connections ran out. */
    @Test
    void theStoreIsNeverTheGatewayItself() {
        DatabaseConfig database = TestPostgres.config("unused");
        for (String[] own : new String[][] {{"127.0.0.1", "127.0.0.1"}, {"0.0.0.0", "localhost"}, {"localhost", "127.0.0.1"},
                {"store.internal", "STORE.internal"}, {"127.0.0.1", "0.0.0.0"}, {"127.0.0.1", "2130706433"},
                {"127.0.0.1", "[::ffff:127.0.0.1]"}, {"::", "[::1]"}}) {
            assertThat(catchThrowable(() -> config(new HostPort(own[0], 18_080), new HostPort("127.0.0.1", 19_090), database,
                    "http://" + own[1] + ":18080"))).as("%s", (Object) own).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--upstream: 'http://" + own[1] + ":18080' (expected the store's address, not this gateway's own --listen");
        }
        assertThat(catchThrowable(() -> config(new HostPort("127.0.0.1", 18_080), new HostPort("127.0.0.1", 19_090), database,
                "http://localhost:19090"))).hasMessageContaining("not this gateway's own --admin-listen 127.0.0.1:19090");
        for (String[] apart : new String[][] {{"127.0.0.1", "10.0.0.7"}, {"0.0.0.0", "10.0.0.7"}, {"127.0.0.1", "127.0.0.2"},
                {"127.0.0.1", "[::1]"}}) {
            assertThat(config(new HostPort(apart[0], 18_080), new HostPort("127.0.0.1", 19_090), database, "http://" + apart[1] + ":18080")
                    .upstreamAddress().port()).as("another socket of the same port number: %s", (Object) apart).isEqualTo(18_080);
        }
    }

    @Test
    void theAdminPortIsNeverTheDataPort() {
        DatabaseConfig database = TestPostgres.config("unused");
        // One port spelt two ways is found from the text, so check-config refuses it too, as the start does.
        for (String admin : new String[] {"127.0.0.1", "0.0.0.0", "localhost", "LOCALHOST", "::ffff:127.0.0.1", "::"}) {
            HostPort adminListen = new HostPort(admin, 18_080);
            assertThat(catchThrowable(() -> config(new HostPort("127.0.0.1", 18_080), adminListen, database)))
                    .as(admin).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--admin-listen: " + adminListen + " (expected a port other than --listen");
        }
        assertThat(config(new HostPort("127.0.0.1", 18_080), new HostPort("127.0.0.2", 18_080), database).adminListen().port())
                .isEqualTo(18_080);
    }

    private static GatewayConfig config(HostPort listen, HostPort admin, DatabaseConfig database) {
        return config(listen, admin, database, "http://127.0.0.1:9");
    }

    private static GatewayConfig config(HostPort listen, HostPort admin, DatabaseConfig database, String upstream) {
        return new GatewayConfig(listen, admin, URI.create(upstream), database, Duration.ofSeconds(2),
                Duration.ofSeconds(5), Duration.ofSeconds(5), Limits.defaults(), SafetyConfig.defaults(), 2);
    }
}
