package dev.fencegate.proxy;

import dev.fencegate.admin.AdminEndpoints;
import dev.fencegate.admin.AdminRequest;
import dev.fencegate.admin.AdminResponse;
import dev.fencegate.admin.CrossSiteGate;
import dev.fencegate.config.HostPort;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The admin port's transport. Requests are tiny, so they are aggregated, with a small limit. */
public final class AdminServer implements AutoCloseable {

    private static final int MAX_ADMIN_REQUEST = 16 * 1024;
    /** /fences blocks on the fence store: those calls run here, never on the event loop. */
    private static final int HANDLER_THREADS = 2;

    private final EventLoopGroup group;
    private final EventExecutorGroup handlers;
    private final Channel channel;

    private AdminServer(EventLoopGroup group, EventExecutorGroup handlers, Channel channel) {
        this.group = group;
        this.handlers = handlers;
        this.channel = channel;
    }

    public static AdminServer start(HostPort listen, AdminEndpoints endpoints) throws InterruptedException {
        return start(listen, endpoints, ConnectionBounds.defaults());
    }

    /** The same idle timeout, head deadline and connection cap as the data port, counted apart from it. */
    public static AdminServer start(HostPort listen, AdminEndpoints endpoints, ConnectionBounds bounds) throws InterruptedException {
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(1);
        EventExecutorGroup handlers = new DefaultEventExecutorGroup(HANDLER_THREADS, new DefaultThreadFactory("admin-handler", true));
        ConnectionLimit connections = new ConnectionLimit(bounds.maxConnections());
        CrossSiteGate gate = new CrossSiteGate(listen.host(), endpoints.requiresToken());
        Channel channel = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (!connections.admit(ch)) {
                            return;
                        }
                        HeadDeadline headDeadline = new HeadDeadline(bounds.headTimeout());
                        ch.pipeline().addLast(new IdleStateHandler(bounds.idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS),
                                headDeadline.bytes(), new HttpServerCodec(), headDeadline.heads(),
                                new HttpObjectAggregator(MAX_ADMIN_REQUEST), new AdminTimeoutReplies());
                        ch.pipeline().addLast(handlers, new AdminHandler(endpoints, gate));
                    }
                })
                .bind(listen.host(), listen.port())
                .sync()
                .channel();
        return new AdminServer(group, handlers, channel);
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        // A quiet period, so that tearing down a pipeline, which hops to the handler thread and back,
        // finds the event loop still running; then the handler threads.
        group.shutdownGracefully(100, 1_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
        handlers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final AdminEndpoints endpoints;
        private final CrossSiteGate gate;

        AdminHandler(AdminEndpoints endpoints, CrossSiteGate gate) {
            this.endpoints = endpoints;
            this.gate = gate;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
            AdminResponse answer = request.decoderResult().isSuccess()
                    ? gate.refusal(request.method().name(), new QueryStringDecoder(request.uri()).rawPath(), signals(request))
                            .orElseGet(() -> endpoints.handle(adminRequest(ctx, request)))
                    : AdminResponse.text(400, "malformed request");
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(answer.status()), Unpooled.wrappedBuffer(answer.body()));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType());
            answer.headers().forEach(response.headers()::set);
            HttpUtil.setContentLength(response, answer.body().length);
            HttpUtil.setKeepAlive(response, keepAlive);
            var written = ctx.writeAndFlush(response);
            if (!keepAlive) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        }

        private static CrossSiteGate.Signals signals(FullHttpRequest request) {
            var headers = request.headers();
            return new CrossSiteGate.Signals(Optional.ofNullable(headers.get(HttpHeaderNames.ORIGIN)),
                    Optional.ofNullable(headers.get("Sec-Fetch-Site")), Optional.ofNullable(headers.get(HttpHeaderNames.HOST)),
                    Optional.ofNullable(headers.get(HttpHeaderNames.CONTENT_TYPE)));
        }

        /** The raw path keeps its escapes: /fences/%2Fa%2Fb names one resource, /a/b, not a deeper route. */
        private static AdminRequest adminRequest(ChannelHandlerContext ctx, FullHttpRequest request) {
            QueryStringDecoder uri = new QueryStringDecoder(request.uri());
            return new AdminRequest(request.method().name(), uri.rawPath(), uri.parameters(),
                    Optional.ofNullable(request.headers().get(HttpHeaderNames.AUTHORIZATION)),
                    ctx.channel().remoteAddress() instanceof InetSocketAddress remote
                            ? remote.getHostString() + ":" + remote.getPort() : String.valueOf(ctx.channel().remoteAddress()));
        }
    }
}
