package dev.fencegate.nemesis;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.FenceSchema;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.TcpRelay;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Two instances sharing one fence schema in front of one in-memory store: {@link #victim}, a
 * gateway process the test can pause, kill or cut from PostgreSQL (its JDBC goes through
 * {@link #relay}), and {@link #other}, an instance in the test's JVM through which higher
 * tokens are raised meanwhile. Few connections: two fence-check threads each.
 */
final class TwoGateways implements AutoCloseable {

    /** Fence-check threads per instance; each instance holds two connections more. */
    static final int POOL_SIZE = 2;

    final MemoryObjectStore store;
    final TcpRelay relay;
    final GatewayProcess victim;
    final Gateway other;
    final FenceSchema fences;
    final Duration upstreamTimeout;

    private TwoGateways(MemoryObjectStore store, TcpRelay relay, GatewayProcess victim, Gateway other, FenceSchema fences,
                        Duration upstreamTimeout) {
        this.store = store;
        this.relay = relay;
        this.victim = victim;
        this.other = other;
        this.fences = fences;
        this.upstreamTimeout = upstreamTimeout;
    }

    /**
     * @param upstreamTimeout both instances' {@code --upstream-timeout}: short, so a registration
     *                        lives a few seconds and a pause can outlast it
     */
    static TwoGateways start(String owner, Duration upstreamTimeout) throws Exception {
        String schema = TestPostgres.newSchema(owner);
        var server = TestPostgres.server();
        Duration checkTimeout = Duration.ofSeconds(2);
        MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
        TcpRelay relay = null;
        GatewayProcess victim = null;
        try {
            relay = TcpRelay.toJdbc(server.url());
            DatabaseConfig throughRelay = new DatabaseConfig(relay.jdbcUrl(server.url()), schema, server.user(),
                    server.password(), POOL_SIZE, checkTimeout);
            // Started first, alone: it creates the schema, so the two never migrate at once.
            victim = GatewayProcess.start(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), store.port(), throughRelay,
                    "--upstream-timeout", seconds(upstreamTimeout),
                    "--client-idle-timeout", "30s", "--fence-timeout", seconds(checkTimeout));
            DatabaseConfig direct = new DatabaseConfig(server.url(), schema, server.user(), server.password(), POOL_SIZE,
                    checkTimeout);
            Gateway other = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), direct,
                    upstreamTimeout, Duration.ofSeconds(30), dev.fencegate.config.SafetyConfig.defaults()));
            return new TwoGateways(store, relay, victim, other, new FenceSchema(schema), upstreamTimeout);
        } catch (Exception | Error e) {
            if (victim != null) {
                victim.close();
            }
            if (relay != null) {
                relay.close();
            }
            store.close();
            throw e;
        }
    }

    static String seconds(Duration duration) {
        return duration.toMillis() + "ms";
    }


    @Override
    public void close() {
        try {
            victim.close();
        } finally {
            try {
                other.close();
            } finally {
                relay.close();
                store.close();
            }
        }
    }
}
