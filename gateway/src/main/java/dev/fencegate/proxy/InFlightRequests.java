package dev.fencegate.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts client connections between a request head and the last byte of its answer written out,
 * so that {@link GatewayServer#close(java.time.Duration)} knows when the drain is done.
 * Informational answers (100 Continue) do not end a request. Shared by every client channel.
 */
@ChannelHandler.Sharable
final class InFlightRequests extends ChannelDuplexHandler {

    private static final AttributeKey<Boolean> ANSWERING = AttributeKey.valueOf("fencegate.answering");
    private final AtomicInteger count = new AtomicInteger();

    int count() {
        return count.get();
    }

    /** Sits just before the receiver: it sees the requests it gets and every answer it writes. */
    ChannelInitializer<Channel> around(ClientChannelInitializer clients) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel channel) {
                channel.pipeline().addLast(clients);
                ChannelHandlerContext receiver = channel.pipeline().context(ClientRequestReceiver.class);
                // None when the connection was refused over --max-connections: it carries no request.
                if (receiver != null) {
                    channel.pipeline().addBefore(receiver.name(), "in-flight-requests", InFlightRequests.this);
                }
            }
        };
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest && !Boolean.TRUE.equals(ctx.channel().attr(ANSWERING).getAndSet(true))) {
            count.incrementAndGet();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean informational = msg instanceof HttpResponse response
                && response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
        if (msg instanceof LastHttpContent && !informational) {
            ChannelPromise written = promise.unvoid();
            written.addListener(done -> answered(ctx.channel()));
            ctx.write(msg, written);
        } else {
            ctx.write(msg, promise);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        answered(ctx.channel());
        ctx.fireChannelInactive();
    }

    private void answered(Channel channel) {
        if (Boolean.TRUE.equals(channel.attr(ANSWERING).getAndSet(false))) {
            count.decrementAndGet();
        }
    }
}
