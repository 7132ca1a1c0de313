package dev.fencegate.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection whose request body is still coming once its answer is out, as nginx's
 * {@code lingering_close} does. Closing with unread bytes in the socket makes the kernel reset the
 * connection, and a client still sending its body (java.net.http does, for a body it was not asked
 * to hold back for a 100) then loses the answer it had not read yet: a worker refused as stale
 * would see a broken connection, not its 412. So the gateway sends its FIN, then reads and drops
 * what the client still sends until it closes its side, goes quiet for {@link #QUIET_MILLIS}, or
 * {@link #MOST_MILLIS} or {@link #MOST_BYTES} have passed, and only then closes. Nothing read is
 * parsed, let alone forwarded.
 */
final class LingeringClose extends ChannelInboundHandlerAdapter {

    static final long QUIET_MILLIS = 1_000;
    static final long MOST_MILLIS = 5_000;
    static final long MOST_BYTES = 64L * 1024 * 1024;
    private static final long CHECK_MILLIS = 250;

    private final long startedNanos = System.nanoTime();
    private long lastReadNanos = startedNanos;
    private long bytes;

    private LingeringClose() {
    }

    /** Once {@code written} (the answer) is out: the FIN, then reading and dropping until one of the limits; closes at once if the answer failed. */
    static void after(ChannelFuture written) {
        written.addListener(sent -> {
            Channel channel = written.channel();
            if (!sent.isSuccess() || !channel.isActive() || !(channel instanceof DuplexChannel duplex)) {
                channel.close();
                return;
            }
            LingeringClose lingering = new LingeringClose();
            channel.pipeline().addFirst("lingering-close", lingering);
            duplex.shutdownOutput().addListener(shut -> {
                if (!shut.isSuccess()) {
                    channel.close();
                }
            });
            channel.config().setAutoRead(true);
            lingering.check(channel);
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            bytes += buf.readableBytes();
        }
        ReferenceCountUtil.release(msg);
        lastReadNanos = System.nanoTime();
        if (bytes > MOST_BYTES) {
            ctx.close();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        ReferenceCountUtil.release(evt);
        // The client's FIN (an input shutdown where half-closure is on): nothing more is coming.
        if (evt instanceof ChannelInputShutdownEvent) {
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private void check(Channel channel) {
        if (!channel.isActive()) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastReadNanos >= TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS)
                || now - startedNanos >= TimeUnit.MILLISECONDS.toNanos(MOST_MILLIS)) {
            channel.close();
            return;
        }
        channel.eventLoop().schedule(() -> check(channel), CHECK_MILLIS, TimeUnit.MILLISECONDS);
    }
}
