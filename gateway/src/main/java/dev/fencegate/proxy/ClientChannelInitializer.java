package dev.fencegate.proxy;

import dev.fencegate.config.GatewayConfig;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The client-facing pipeline: TLS when configured, idle timer, head deadline, strict HTTP/1.1 codec, one message per read, the receiver. */
final class ClientChannelInitializer extends ChannelInitializer<Channel> {

    /** Bodies are relayed in chunks of at most this size, whatever the client sends. */
    private static final int MAX_CHUNK_SIZE = 64 * 1024;

    private final GatewayConfig config;
    private final GatewayRuntime runtime;
    private final EdgePolicy policy;
    private final Optional<DataPortTls> tls;
    private final ConnectionLimit connections;

    ClientChannelInitializer(GatewayConfig config, GatewayRuntime runtime) {
        this.config = config;
        this.runtime = runtime;
        this.policy = EdgePolicy.of(config);
        this.tls = DataPortTls.of(config.tls());
        this.connections = new ConnectionLimit(config.limits().maxConnections());
    }

    @Override
    protected void initChannel(Channel channel) {
        if (!connections.admit(channel)) {
            return;
        }
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(config.limits().maxInitialLineLength())
                .setMaxHeaderSize(config.limits().maxHeaderSize())
                .setMaxChunkSize(MAX_CHUNK_SIZE)
                .setValidateHeaders(true)
                // After setValidateHeaders, which replaces the factory: the screen needs every Content-Length field sent.
                .setHeadersFactory(ReceivedHeaders.FACTORY)
                .setAllowDuplicateContentLengths(false)
                .setAllowPartialChunks(true)
                .setStrictLineParsing(true)
                .setUseRfc9112TransferEncoding(true);
        // The handshake needs reads while the receiver has auto-read off: TLS sits first and reads for itself.
        tls.ifPresent(context -> channel.pipeline().addLast(new PlainTextOnTlsPort(), context.newHandler(channel.alloc())));
        HeadDeadline headDeadline = new HeadDeadline(config.limits().headTimeout());
        channel.pipeline().addLast(
                new IdleStateHandler(config.clientIdleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS),
                headDeadline.bytes(),
                new HttpServerCodec(decoder),
                headDeadline.heads(),
                // The decoder can emit a head and its body in one read; this hands them over one per read().
                new FlowControlHandler(),
                new ClientRequestReceiver(runtime, policy, headDeadline::quietBetweenRequests));
    }
}
