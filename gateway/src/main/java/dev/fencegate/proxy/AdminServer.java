package dev.fencegate.proxy;

import dev.fencegate.admin.AdminEndpoints;
import dev.fencegate.admin.AdminResponse;
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
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** The admin port's transport. Requests are tiny, so they are aggregated, with a small limit. */
public final class AdminServer implements AutoCloseable {

    private static final int MAX_ADMIN_REQUEST = 16 * 1024;

    private final EventLoopGroup group;
    private final Channel channel;

    private AdminServer(EventLoopGroup group, Channel channel) {
        this.group = group;
        this.channel = channel;
    }

    public static AdminServer start(HostPort listen, AdminEndpoints endpoints) throws InterruptedException {
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(1);
        Channel channel = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_ADMIN_REQUEST),
                                new AdminHandler(endpoints));
                    }
                })
                .bind(listen.host(), listen.port())
                .sync()
                .channel();
        return new AdminServer(group, channel);
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final AdminEndpoints endpoints;

        AdminHandler(AdminEndpoints endpoints) {
            this.endpoints = endpoints;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
            AdminResponse answer = request.decoderResult().isSuccess()
                    ? endpoints.handle(request.method().name(), new QueryStringDecoder(request.uri()).path())
                    : AdminResponse.text(400, "malformed request");
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(answer.status()), Unpooled.wrappedBuffer(answer.body()));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType());
            HttpUtil.setContentLength(response, answer.body().length);
            HttpUtil.setKeepAlive(response, keepAlive);
            var written = ctx.writeAndFlush(response);
            if (!keepAlive) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
