package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.HostPort;
import dev.fencegate.testing.NameServer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The warning at start says why the store cannot be reached. */
class StoreProbeTest {

    /** A refused connection reads as the system says it, not as Netty's native transport words it. */
    @Test
    void aStoreThatRefusesConnectionsIsNamedInTheSystemsWords() throws Exception {
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(1);
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        Duration timeout = Duration.ofSeconds(2);
        StoreConnections connections = new StoreConnections(transport, new HostPort("127.0.0.1", closedPort), timeout,
                new WriteBufferWaterMark(64 * 1024, 256 * 1024));
        try {
            assertThat(StoreProbe.problem(connections, group.next(), timeout)).contains("Connection refused");
        } finally {
            connections.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** The resolver's message alone can read as if the host were merely down. */
    @Test
    void aStoreHostNameThatDoesNotResolveIsNamedAsAnUnknownHost() {
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(1);
        Duration timeout = Duration.ofSeconds(2);
        // .invalid never resolves (RFC 6761); this name server says so for any name but its own.
        try (NameServer names = NameServer.answering("store.fencegate.test", Duration.ZERO)) {
            StoreConnections connections = new StoreConnections(transport, new HostPort("store.invalid", 9000), timeout,
                    new WriteBufferWaterMark(64 * 1024, 256 * 1024), StoreConnections.lookups(transport, timeout)
                    .nameServerProvider(new SingletonDnsServerAddressStreamProvider(names.address())));
            try {
                assertThat(StoreProbe.problem(connections, group.next(), timeout)).hasValueSatisfying(problem ->
                        assertThat(problem).startsWith("unknown host store.invalid"));
            } finally {
                connections.close();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
