package dev.fencegate.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
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
    /**
     * The answer under way would have kept its connection (its head said keep-alive, or said so
     * until the drain changed it): while draining, the connection is closed once the answer is out,
     * also when its head went out before the drain began.
     */
    private static final AttributeKey<Boolean> KEEPS_CONNECTION = AttributeKey.valueOf("fencegate.answer-keeps-connection");
    private final AtomicInteger count = new AtomicInteger();
    private volatile boolean draining;

    int count() {
        return count.get();
    }

    /**
     * The gateway is stopping: each answer from now on says {@code Connection: close} and its
     * connection is closed once it is out, so a client sends its next request on a new connection,
     * which is refused plainly, rather than on this one as it closes, where it cannot tell whether
     * a write it sent was taken.
     */
    void draining() {
        draining = true;
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
        if (!informational && msg instanceof HttpResponse response) {
            // An answer that closes its connection anyway does so its own way (lingering, say).
            boolean keeps = HttpUtil.isKeepAlive(response);
            ctx.channel().attr(KEEPS_CONNECTION).set(keeps);
            if (draining && keeps) {
                HttpUtil.setKeepAlive(response, false);
            }
        }
        if (msg instanceof LastHttpContent && !informational) {
            ChannelPromise written = promise.unvoid();
            written.addListener(done -> answered(ctx.channel()));
            if (Boolean.TRUE.equals(ctx.channel().attr(KEEPS_CONNECTION).getAndSet(false)) && draining) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
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
