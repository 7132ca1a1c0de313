package dev.fencegate.proxy;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.HostPort;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.io.File;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * TLS to an {@code https} store, built once at start: the store's certificate must chain to
 * {@code --upstream-ca} (the JDK's trusted roots without it) and name the host {@code --upstream}
 * gives, which is also sent as the server name (SNI) when it is a dotted name (the JDK sends none for
 * {@code localhost} or an address).
 */
final class StoreTls {

    private final SslContext context;
    private final HostPort store;

    private StoreTls(SslContext context, HostPort store) {
        this.context = context;
        this.store = store;
    }

    static Optional<StoreTls> of(GatewayConfig config) {
        if (!config.upstreamTls()) {
            return Optional.empty();
        }
        String ca = config.tls().storeCa();
        try {
            SslContextBuilder builder = SslContextBuilder.forClient().protocols("TLSv1.3", "TLSv1.2")
                    .endpointIdentificationAlgorithm("HTTPS");
            if (!ca.isEmpty()) {
                builder.trustManager(new File(ca));
            }
            return Optional.of(new StoreTls(builder.build(), config.upstreamAddress()));
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("--upstream-ca: '" + ca + "' could not be used (expected PEM CA certificates: "
                    + e.getMessage() + ")", e);
        }
    }

    /** A handler for a new connection to the store, whose handshake may take {@code timeoutMillis}. */
    SslHandler newHandler(ByteBufAllocator allocator, long timeoutMillis) {
        SslHandler handler = context.newHandler(allocator, store.host(), store.port());
        handler.setHandshakeTimeoutMillis(timeoutMillis);
        return handler;
    }

    /**
     * Closes a store connection at once. With TLS, the close goes around the handler, which would
     * first send everything it holds of the request and a {@code close_notify}, and keep the
     * connection open up to 3 s for them to leave: a request the gateway gave up on would go on
     * reaching the store, its end included, after the gateway decided it must not.
     */
    static ChannelFuture closeAtOnce(Channel store) {
        ChannelHandlerContext tls = store.pipeline().context(SslHandler.class);
        return tls != null ? tls.close() : store.close();
    }
}
