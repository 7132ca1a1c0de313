package dev.fencegate.proxy;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.ScopeConfig;
import dev.fencegate.config.TlsConfig;
import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.TokenSignatures;
import dev.fencegate.config.Limits;
import dev.fencegate.fence.UploadOwners;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.GenericHttpIdentity;
import dev.fencegate.http.S3PathIdentity;
import dev.fencegate.http.S3VirtualHostIdentity;
import dev.fencegate.http.StoreIdentity;
import dev.fencegate.http.VirtualHosts;
import dev.fencegate.http.WebDavIdentity;
import dev.fencegate.http.ResourceScopes;
import dev.fencegate.observability.AccessLog;
import dev.fencegate.observability.GatewayMetrics;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The data port: accepts clients and relays their requests to the store through the fence. */
public final class GatewayServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GatewayServer.class);
    /** Pause reading from one side once this much is queued for the other. */
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(64 * 1024, 256 * 1024);

    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final InFlightRequests inFlight;
    private final StoreConnections connections;

    private GatewayServer(EventLoopGroup group, Channel serverChannel, InFlightRequests inFlight, StoreConnections connections) {
        this.group = group;
        this.serverChannel = serverChannel;
        this.inFlight = inFlight;
        this.connections = connections;
    }

    /**
     * The identity rules of the configured store kind. Under {@code s3-path} the store's own host
     * name counts as one of its domains: a store that does virtual hosting at all does it under the
     * name it is reached by (MinIO's domain, AWS's endpoint), so a write whose Host is below it is
     * refused whether or not the operator listed it.
     */
    static StoreIdentity identity(Limits limits, String upstreamHost) {
        return identity(limits, Optional.of(upstreamHost), "");
    }

    /** @param upstreamPath the path {@code --upstream} adds in front of every target (none under the S3 kinds) */
    private static StoreIdentity identity(Limits limits, Optional<String> upstreamHost, String upstreamPath) {
        VirtualHosts domains = new VirtualHosts(limits.virtualHostDomainList());
        return switch (limits.storeKind()) {
            case HTTP -> new GenericHttpIdentity(upstreamPath, limits.allowTemporaryNames());
            case WEBDAV -> new WebDavIdentity(limits.allowTemporaryNames());
            case S3_PATH -> new S3PathIdentity(upstreamHost.map(domains::and).orElse(domains), limits.allowTemporaryNames());
            case S3_VIRTUAL_HOST -> new S3VirtualHostIdentity(domains, limits.allowTemporaryNames());
        };
    }

    /** How this instance turns a write into its claim: store kind, job scopes, token signatures. */
    public static ClaimRules claimRules(GatewayConfig config) {
        return claimRules(config.limits(), Optional.of(config.upstreamAddress().host()), config.upstreamPathPrefix(),
                config.scopes(), config.safety().tokenKey().map(TokenSignatures::new));
    }

    /**
     * The same rules from the naming settings alone, for {@code sign}, which may be run without
     * {@code --upstream}: then no Host is refused for being below the store's own name.
     */
    public static ClaimRules claimRules(Limits limits, Optional<String> upstreamHost, ScopeConfig scopes,
                                        Optional<TokenSignatures> signatures) {
        return claimRules(limits, upstreamHost, "", scopes, signatures);
    }

    private static ClaimRules claimRules(Limits limits, Optional<String> upstreamHost, String upstreamPath, ScopeConfig scopes,
                                         Optional<TokenSignatures> signatures) {
        return new ClaimRules(identity(limits, upstreamHost, upstreamPath), ResourceScopes.parse(scopes.templates(),
                scopes.refuseUnscoped() ? ResourceScopes.Unscoped.REFUSE : ResourceScopes.Unscoped.PER_OBJECT), signatures);
    }

    /**
     * Opens the data port's keystores and reads the store's CA certificates as start would, so a
     * wrong password or a file that holds no certificate is refused before anything starts.
     */
    public static void checkTls(GatewayConfig config) {
        DataPortTls.of(config.tls());
        StoreTls.of(config);
    }

    /** @param claims {@link #claimRules} of {@code config}, made once for the data and admin ports */
    public static GatewayServer start(GatewayConfig config, ClaimRules claims, FenceChecker fences, UploadOwners uploads,
                                      GatewayMetrics metrics)
            throws InterruptedException {
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(config.ioThreads());
        StoreConnections connections = null;
        try {
            connections = new StoreConnections(transport, config.upstreamAddress(),
                    config.upstreamConnectTimeout(), WATER_MARK, StoreTls.of(config));
            GatewayRuntime runtime = new GatewayRuntime(fences, connections, metrics,
                    AccessLog.of(config.operations().accessLog()),
                    claims,
                    config.upstreamPathPrefix(),
                    claims.identity().storeGetsTheClientsHost() ? Optional.empty() : Optional.of(StoreHost.Upstream.of(config)),
                    config.upstreamTimeout().toMillis(), uploads);
            InFlightRequests inFlight = new InFlightRequests();
            Channel channel = ListenAddresses.bind(new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                    .childHandler(inFlight.around(new ClientChannelInitializer(config, runtime))), "--listen", config.listen());
            log.info("Data port listening on {} ({}, {} transport, {} I/O threads), store {}",
                    channel.localAddress(), spoken(config.tls()), transport.name(), config.ioThreads(), config.upstream());
            return new GatewayServer(group, channel, inFlight, connections);
        } catch (Throwable e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            if (connections != null) {
                connections.close();
            }
            throw e;
        }
    }

    /** What a client must speak to the data port, for the start's log line. */
    static String spoken(TlsConfig tls) {
        if (!tls.enabled()) {
            return "plain HTTP";
        }
        return tls.clientCertificatesRequired() ? "TLS, client certificates required" : "TLS";
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /**
     * Why the store cannot be reached now, or empty: one connection made as requests make theirs.
     * Blocks up to about {@code timeout}; call it at start, never on an event loop.
     */
    public Optional<String> storeProblem(Duration timeout) {
        return StoreProbe.problem(connections, group.next(), timeout);
    }

    /**
     * Stops accepting; requests in flight get up to {@code drain} to finish; then every connection
     * is closed. Waiting happens here because shutting an event loop down closes its channels at
     * once, whatever the quiet period.
     */
    public void close(Duration drain) {
        serverChannel.close().syncUninterruptibly();
        inFlight.draining();
        long deadline = System.nanoTime() + drain.toNanos();
        try {
            while (inFlight.count() > 0 && deadline - System.nanoTime() > 0) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (inFlight.count() > 0) {
            log.warn("{} requests still in flight after the {} ms drain; closing their connections", inFlight.count(), drain.toMillis());
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        connections.close();
    }

    @Override
    public void close() {
        close(Duration.ZERO);
    }
}
