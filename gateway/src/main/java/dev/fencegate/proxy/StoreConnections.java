package dev.fencegate.proxy;

import dev.fencegate.config.HostPort;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.netty.resolver.dns.UnixResolverDnsServerAddressStreamProvider;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.PlatformDependent;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Keep-alive connections to the store, one idle list per event loop. A connection is only used
 * on the loop that owns it, the loop of the client it serves, so nothing here is shared.
 *
 * <p>A store named by a host name is looked up on the loop without blocking it (Netty's DNS
 * resolver: {@code /etc/hosts}, then the name servers of {@code /etc/resolv.conf} ({@link #nameServers}), each answer kept
 * for its time to live), and the lookup counts against the connect timeout. The JDK's lookup,
 * Netty's default, blocks the loop and every client on it for as long as the name servers take.
 */
final class StoreConnections implements AutoCloseable {

    private static final int MAX_IDLE_PER_LOOP = 256;
    private static final String RESOLV_CONF = "/etc/resolv.conf";
    private static final int DNS_PORT = 53;
    /** What the kernel may hold of a request beyond what is on the wire: see {@link Transport#boundUnsent}. */
    private static final long UNSENT_IN_KERNEL = 128 * 1024;

    private final Bootstrap bootstrap;
    private final HostPort store;
    private final InetSocketAddress remote;
    private final long connectTimeoutMillis;
    /** Whether a connection is ready only once its TLS handshake is done. */
    private final boolean tls;
    /** Looks the store's host name up; null when {@code --upstream} gives an address. */
    private final DnsAddressResolverGroup names;
    private final FastThreadLocal<ArrayDeque<Channel>> idle = new FastThreadLocal<>() {
        @Override
        protected ArrayDeque<Channel> initialValue() {
            return new ArrayDeque<>();
        }
    };

    StoreConnections(Transport transport, HostPort store, Duration connectTimeout, WriteBufferWaterMark waterMark) {
        this(transport, store, connectTimeout, waterMark, Optional.empty());
    }

    /** @param tls TLS to the store, if it is reached by {@code https} */
    StoreConnections(Transport transport, HostPort store, Duration connectTimeout, WriteBufferWaterMark waterMark,
                     Optional<StoreTls> tls) {
        this(transport, store, connectTimeout, waterMark, lookups(transport, connectTimeout), tls);
    }

    /** @param lookups how the store's host name is looked up, unless it is an address */
    StoreConnections(Transport transport, HostPort store, Duration connectTimeout, WriteBufferWaterMark waterMark,
                     DnsNameResolverBuilder lookups) {
        this(transport, store, connectTimeout, waterMark, lookups, Optional.empty());
    }

    private StoreConnections(Transport transport, HostPort store, Duration connectTimeout, WriteBufferWaterMark waterMark,
                             DnsNameResolverBuilder lookups, Optional<StoreTls> tls) {
        this.store = store;
        this.tls = tls.isPresent();
        this.connectTimeoutMillis = Math.max(1, connectTimeout.toMillis());
        this.bootstrap = transport.boundUnsent(new Bootstrap(), UNSENT_IN_KERNEL)
                .channel(transport.clientChannel())
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark)
                .option(ChannelOption.MESSAGE_SIZE_ESTIMATOR, WindowCheckedBytes.SIZES)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        channel.pipeline().addLast(new SocketGate());
                        tls.ifPresent(store -> channel.pipeline().addLast(store.newHandler(channel.alloc(), connectTimeoutMillis)));
                        StoreResponseReceiver receiver = new StoreResponseReceiver();
                        channel.pipeline().addLast(receiver.idleBytes(), new StoreCodec(), receiver);
                    }
                });
        InetAddress address = addressIn(store.host());
        if (address != null) {
            this.names = null;
            this.remote = new InetSocketAddress(address, store.port());
            bootstrap.disableResolver();
        } else {
            this.names = new DnsAddressResolverGroup(lookups);
            this.remote = InetSocketAddress.createUnresolved(store.host(), store.port());
            bootstrap.resolver(names);
        }
    }

    /** The system's hosts file and name servers, each query given the connect timeout. */
    static DnsNameResolverBuilder lookups(Transport transport, Duration connectTimeout) {
        DnsNameResolverBuilder builder = new DnsNameResolverBuilder().queryTimeoutMillis(Math.max(1, connectTimeout.toMillis()))
                .nameServerProvider(nameServers(new File(RESOLV_CONF)));
        // A transport without datagrams (a test's embedded one) has only addresses to connect to.
        return transport.datagramChannel() == null ? builder
                : builder.datagramChannelType(transport.datagramChannel()).socketChannelType(transport.clientChannel());
    }

    /**
     * The name servers {@code resolvConf} names, as Netty reads them on Linux; where it names none, or
     * is missing, the one on this host, as the C library's resolver asks (resolv.conf(5)). Netty's own
     * fallback is the JDK's settings and then public name servers, which would tell the store's name to
     * a third party, or wait on servers a closed network cannot reach. Elsewhere, Netty's choice.
     */
    static DnsServerAddressStreamProvider nameServers(File resolvConf) {
        if (PlatformDependent.isWindows() || PlatformDependent.isOsx()) {
            return DnsServerAddressStreamProviders.platformDefault();
        }
        try {
            return new UnixResolverDnsServerAddressStreamProvider(resolvConf);
        } catch (IOException | IllegalArgumentException noNameServer) {
            return new SingletonDnsServerAddressStreamProvider(new InetSocketAddress(InetAddress.getLoopbackAddress(), DNS_PORT));
        }
    }

    /**
     * The address {@code host} spells, or null for a name. Digits and dots alone are an address, in
     * the short forms too ({@code 127.1}), which the JDK reads and a name server would not; read at
     * start, where the JDK may block.
     */
    static InetAddress addressIn(String host) {
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(host);
        try {
            if (bytes != null) {
                return InetAddress.getByAddress(bytes);
            }
            return host.matches("[0-9.]+") ? InetAddress.getByName(host) : null;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--upstream: '" + host + "' (expected an IP address or a host name)", e);
        }
    }

    /** An open connection on {@code loop}: an idle one if there is one, a new one otherwise. Call on the loop. */
    ChannelFuture acquire(EventLoop loop) {
        Channel channel = idle();
        return channel != null ? channel.newSucceededFuture() : connect(loop);
    }

    /** An idle connection of this loop, still open, taken from the idle ones; null if there is none. Call on the loop. */
    Channel idle() {
        ArrayDeque<Channel> list = idle.get();
        Channel channel;
        while ((channel = list.pollFirst()) != null) {
            if (channel.isActive()) {
                return channel;
            }
        }
        return null;
    }

    /**
     * A new connection on {@code loop}, ready for a request: with TLS, once its handshake is done
     * (within the connect timeout again), so no request is written to a connection whose store is
     * not the one named. Call on the loop.
     */
    ChannelFuture connect(EventLoop loop) {
        ChannelFuture connected = connectSocket(loop);
        if (!tls) {
            return connected;
        }
        Channel channel = connected.channel();
        ChannelPromise ready = channel.newPromise();
        connected.addListener((ChannelFuture done) -> {
            if (!done.isSuccess()) {
                ready.tryFailure(done.cause());
                return;
            }
            SslHandler handshake = channel.pipeline().get(SslHandler.class);
            if (handshake == null) {
                // Closed already, its handlers gone with it.
                ready.tryFailure(new ClosedChannelException());
                return;
            }
            // Reads are asked for one at a time here: the store's part of the handshake must be read.
            channel.read();
            handshake.handshakeFuture().addListener(shaken -> {
                if (shaken.isSuccess()) {
                    ready.trySuccess();
                } else {
                    channel.close();
                    ready.tryFailure(shaken.cause());
                }
            });
        });
        return ready;
    }

    private ChannelFuture connectSocket(EventLoop loop) {
        ChannelFuture connecting = bootstrap.clone(loop).connect(remote);
        if (names == null || connecting.isDone()) {
            return connecting;
        }
        // The connect timeout starts once the lookup has an address; the lookup may send a query
        // for each search domain and each name server, each with the whole timeout. This bounds both.
        ChannelPromise bounded = connecting.channel().newPromise();
        boolean[] expired = {false};
        ScheduledFuture<?> deadline = loop.schedule(() -> {
            if (!bounded.isDone()) {
                // Closed first, so whoever hears of the failure finds no socket left behind.
                expired[0] = true;
                connecting.channel().close();
                bounded.tryFailure(new ConnectTimeoutException("no connection to " + store + " within "
                        + connectTimeoutMillis + " ms, name lookup included"));
            }
        }, connectTimeoutMillis, TimeUnit.MILLISECONDS);
        connecting.addListener((ChannelFuture done) -> {
            deadline.cancel(false);
            if (expired[0]) {
                return;
            }
            if (!done.isSuccess()) {
                bounded.tryFailure(done.cause());
            } else if (!bounded.trySuccess()) {
                done.channel().close();
            }
        });
        return bounded;
    }

    HostPort store() {
        return store;
    }

    /**
     * Returns a connection whose exchange finished cleanly. Over TLS it becomes idle, to be taken
     * again, in a task after the read that brought its answer: TLS records after the answer's in
     * that read (bytes past its framing, which the codec could not yet see when the answer ended,
     * since the TLS handler hands on one record at a time) find the connection bound to nothing,
     * and close it, rather than become the answer of the next request taken onto it in the same
     * read (a pipelined one). Without TLS a read reaches the codec whole, and bytes past the answer
     * in it keep the connection from being given back ({@link StoreCodec#holdsUnusedBytes}).
     * Call on its loop.
     */
    void release(Channel channel) {
        if (!channel.isActive()) {
            channel.close();
            return;
        }
        // Keep a read pending while idle, so a close by the store is noticed before reuse.
        channel.read();
        if (!tls) {
            makeIdle(channel);
            return;
        }
        try {
            channel.eventLoop().execute(() -> makeIdle(channel));
        } catch (RejectedExecutionException shuttingDown) {
            channel.close();
        }
    }

    private void makeIdle(Channel channel) {
        ArrayDeque<Channel> list = idle.get();
        if (!channel.isActive() || list.size() >= MAX_IDLE_PER_LOOP) {
            channel.close();
            return;
        }
        list.addFirst(channel);
    }

    /** Closes the name lookups' sockets. Call once the event loops are shut down. */
    @Override
    public void close() {
        if (names != null) {
            names.close();
        }
    }
}
