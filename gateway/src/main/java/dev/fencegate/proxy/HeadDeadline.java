package dev.fencegate.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A request head must arrive whole within a deadline, counted from its first byte (from accept
 * for a connection's first request). The idle timer alone restarts on every byte, so a client
 * trickling a head one byte at a time would hold its connection for ever. Two handlers share
 * this state: {@link #bytes()} before the codec sees when a head starts, {@link #heads()} after
 * it sees when one is complete. On expiry {@link #EXPIRED} travels down the pipeline to whoever
 * answers the client. One instance per connection; everything runs on its event loop.
 */
final class HeadDeadline {

    /** The user event fired when a head did not arrive in time. */
    static final Object EXPIRED = new Object() {
        @Override
        public String toString() {
            return "HeadDeadline.EXPIRED";
        }
    };

    private final long timeoutNanos;
    /** Between the end of one request and the head of the next (and before the first). */
    private boolean awaitingHead = true;
    /** A byte of the next head has arrived since the last request ended (or since accept). */
    private boolean headStarted;
    private ScheduledFuture<?> timer;

    HeadDeadline(Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
    }

    /** Goes before the HTTP codec (after TLS): starts the clock at accept and at a head's first byte. */
    ChannelHandler bytes() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                if (ctx.channel().isActive()) {
                    arm(ctx);
                }
            }

            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                arm(ctx);
                ctx.fireChannelActive();
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (awaitingHead && msg instanceof ByteBuf bytes && bytes.isReadable()) {
                    headStarted = true;
                    arm(ctx);
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                disarm();
                ctx.fireChannelInactive();
            }
        };
    }

    /** Goes right after the HTTP codec: a decoded head stops the clock, the end of a request readies it. */
    ChannelHandler heads() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpRequest) {
                    awaitingHead = false;
                    disarm();
                }
                if (msg instanceof LastHttpContent) {
                    awaitingHead = true;
                    headStarted = false;
                }
                ctx.fireChannelRead(msg);
            }
        };
    }

    /**
     * Nothing of a next request has arrived: the connection is quiet between requests. Closing it
     * then takes no answer; a 408 would be read by a client reusing the connection at that moment
     * as the answer to the request it is about to send.
     */
    boolean quietBetweenRequests() {
        return awaitingHead && !headStarted;
    }

    /** Once per head: a running clock is not restarted by later bytes. */
    private void arm(ChannelHandlerContext ctx) {
        if (timer == null && awaitingHead) {
            timer = ctx.executor().schedule(() -> expire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void expire(ChannelHandlerContext ctx) {
        timer = null;
        if (awaitingHead && ctx.channel().isActive()) {
            ctx.fireUserEventTriggered(EXPIRED);
        }
    }

    private void disarm() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
