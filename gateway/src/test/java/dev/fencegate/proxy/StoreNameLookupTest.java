package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.HostPort;
import dev.fencegate.testing.NameServer;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.resolver.dns.DnsServerAddressStream;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's host name is looked up on the event loop without holding it up, and within the connect timeout. */
class StoreNameLookupTest {

    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(64 * 1024, 256 * 1024);

    private final Transport transport = Transport.best();
    private final EventLoopGroup group = transport.newGroup(1);
    private final EventLoop loop = group.next();

    @AfterEach
    void stopLoop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Netty's default lookup is the JDK's, which blocks the loop, and every client on it, until the name servers answer. */
    @Test
    void aStoreNameIsLookedUpWithoutHoldingUpTheEventLoop() throws Exception {
        try (ServerSocket store = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             NameServer names = NameServer.answering("store.fencegate.test", Duration.ofMillis(800))) {
            Duration timeout = Duration.ofSeconds(5);
            StoreConnections connections = new StoreConnections(transport, new HostPort("store.fencegate.test", store.getLocalPort()),
                    timeout, WATER_MARK, StoreConnections.lookups(transport, timeout)
                    .nameServerProvider(new SingletonDnsServerAddressStreamProvider(names.address())));
            try {
                ChannelFuture connecting = loop.submit(() -> connections.acquire(loop)).get();

                // The loop takes its next task while the answer is on its way.
                assertThat(loop.submit(connecting::isDone).get(400, TimeUnit.MILLISECONDS)).isFalse();
                assertThat(connecting.await(5, TimeUnit.SECONDS)).isTrue();
                assertThat(connecting.isSuccess()).as("%s", connecting.cause()).isTrue();
                assertThat(((InetSocketAddress) connecting.channel().remoteAddress()).getPort()).isEqualTo(store.getLocalPort());
                assertThat(names.asked()).contains("store.fencegate.test.");
                connecting.channel().close().sync();
            } finally {
                connections.close();
            }
        }
    }

    /**
     * Netty's fallback, where resolv.conf names no name server, is the JDK's settings and then public
     * name servers: the store's name would go to a third party, or wait on servers a closed network
     * cannot reach. The C library asks the one on this host.
     */
    @Test
    void whereResolvConfNamesNoNameServerTheOneOnThisHostIsAskedAsTheCLibraryDoes(@TempDir Path folder) throws Exception {
        InetSocketAddress local = new InetSocketAddress(InetAddress.getLoopbackAddress(), 53);
        Path missing = folder.resolve("missing.conf");
        Path searchOnly = Files.writeString(folder.resolve("search-only.conf"), "search fencegate.test\noptions ndots:2\n");
        Path named = Files.writeString(folder.resolve("named.conf"), "# a comment\nnameserver 10.1.2.3\nnameserver 10.1.2.4\n");

        assertThat(StoreConnections.nameServers(missing.toFile()).nameServerAddressStream("store.internal").next()).isEqualTo(local);
        assertThat(StoreConnections.nameServers(searchOnly.toFile()).nameServerAddressStream("store.internal").next()).isEqualTo(local);
        DnsServerAddressStream servers = StoreConnections.nameServers(named.toFile()).nameServerAddressStream("store.internal");
        assertThat(List.of(servers.next(), servers.next())).containsExactly(
                new InetSocketAddress("10.1.2.3", 53), new InetSocketAddress("10.1.2.4", 53));
    }

    /** Digits and dots are an address, in the JDK's short forms too: nothing is asked of a name server. */
    @Test
    void anAddressInAShortFormIsConnectedToWithoutALookup() throws Exception {
        try (ServerSocket store = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             NameServer names = NameServer.silent()) {
            Duration timeout = Duration.ofSeconds(2);
            StoreConnections connections = new StoreConnections(transport, new HostPort("127.1", store.getLocalPort()),
                    timeout, WATER_MARK, StoreConnections.lookups(transport, timeout)
                    .nameServerProvider(new SingletonDnsServerAddressStreamProvider(names.address())));
            try {
                ChannelFuture connecting = loop.submit(() -> connections.acquire(loop)).get();
                assertThat(connecting.await(5, TimeUnit.SECONDS)).isTrue();
                assertThat(connecting.isSuccess()).as("%s", connecting.cause()).isTrue();
                assertThat(names.asked()).isEmpty();
                connecting.channel().close().sync();
            } finally {
                connections.close();
            }
        }
    }

    /**
     * Each search domain is a query of its own, each given the whole timeout; the connect timeout
     * bounds them together, and the failure says the lookup was part of it.
     */
    @Test
    void aLookupNobodyAnswersEndsAtTheConnectTimeoutWhateverTheSearchDomains() throws Exception {
        try (NameServer names = NameServer.silent()) {
            Duration timeout = Duration.ofMillis(400);
            StoreConnections connections = new StoreConnections(transport, new HostPort("store", 9000), timeout, WATER_MARK,
                    StoreConnections.lookups(transport, timeout)
                            .nameServerProvider(new SingletonDnsServerAddressStreamProvider(names.address()))
                            .searchDomains(List.of("one.test", "two.test", "three.test")).ndots(1));
            try {
                long start = System.nanoTime();
                ChannelFuture connecting = loop.submit(() -> connections.acquire(loop)).get();
                assertThat(connecting.await(10, TimeUnit.SECONDS)).isTrue();
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

                assertThat(connecting.cause()).isInstanceOf(ConnectTimeoutException.class)
                        .hasMessageContaining("name lookup included");
                // Without the bound, the names asked in turn fail as an unknown host after about three
                // times the timeout; the bound's own failure is what tells them apart.
                assertThat(tookMillis).isLessThan(1_100);
                assertThat(names.asked()).contains("store.one.test.");
                assertThat(connecting.channel().isOpen()).isFalse();
            } finally {
                connections.close();
            }
        }
    }
}
