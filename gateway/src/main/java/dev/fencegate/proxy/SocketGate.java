package dev.fencegate.proxy;

import dev.fencegate.fence.SendWindow;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;

/**
 * The last handler before a store connection's socket (below TLS, if any). A write's window is
 * checked as each piece of the request is handed to the connection, but what the socket cannot
 * take at once waits in Netty's buffer, and Netty writes it to the socket as soon as the socket has
 * room, before this event loop runs anything else: after a pause of this process (a long GC, a
 * stalled VM) longer than the write's registration, bytes admitted earlier would reach the store
 * after a higher token's write. So while a request is bound, each flush leaves as one
 * {@link WindowCheckedBytes}, whose window is checked again each time the socket takes some of it;
 * once it has closed, the connection is reset and the store never gets the request whole. Whatever
 * writes and flushes (the request's sender, or TLS wrapping what it held back during a handshake
 * the store asked for), the bytes of a bound request leave only while its window is open.
 */
final class SocketGate extends ChannelOutboundHandlerAdapter {

    /** The window of the request the connection carries; null between requests, when everything passes. */
    private SendWindow window;
    /** Told when a checked flush found the window closed (the connection is then being reset). */
    private Runnable onWindowClosed;
    /** Written since the last flush while a request is bound: messages and their promises, in turn. */
    private final List<Object> pending = new ArrayList<>(4);

    void bind(SendWindow window, Runnable onWindowClosed) {
        this.window = window;
        this.onWindowClosed = onWindowClosed;
    }

    void unbind() {
        window = null;
        onWindowClosed = null;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (window == null && pending.isEmpty()) {
            ctx.write(msg, promise);
            return;
        }
        pending.add(msg);
        pending.add(promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (pending.isEmpty()) {
            ctx.flush();
            return;
        }
        if (window != null && onlyBytes()) {
            writeChecked(ctx);
        } else {
            for (int i = 0; i < pending.size(); i += 2) {
                ctx.write(pending.get(i), (ChannelPromise) pending.get(i + 1));
            }
            pending.clear();
        }
        ctx.flush();
    }

    private boolean onlyBytes() {
        for (int i = 0; i < pending.size(); i += 2) {
            if (!(pending.get(i) instanceof ByteBuf)) {
                return false;
            }
        }
        return true;
    }

    private void writeChecked(ChannelHandlerContext ctx) {
        ByteBuf bytes;
        if (pending.size() == 2) {
            bytes = (ByteBuf) pending.get(0);
        } else {
            int length = 0;
            for (int i = 0; i < pending.size(); i += 2) {
                length += ((ByteBuf) pending.get(i)).readableBytes();
            }
            // One buffer, so the socket takes head and body in one call, as it would have taken them gathered.
            bytes = ctx.alloc().directBuffer(length);
            for (int i = 0; i < pending.size(); i += 2) {
                ByteBuf part = (ByteBuf) pending.get(i);
                bytes.writeBytes(part, part.readerIndex(), part.readableBytes());
                part.release();
            }
        }
        List<ChannelPromise> promises = new ArrayList<>(pending.size() / 2);
        for (int i = 1; i < pending.size(); i += 2) {
            promises.add((ChannelPromise) pending.get(i));
        }
        pending.clear();
        ChannelPromise written = ctx.newPromise();
        Runnable closed = onWindowClosed;
        written.addListener(done -> {
            if (done.cause() instanceof WindowCheckedBytes.WindowClosed && closed != null) {
                // First, so the exchange ends as expired before a failed write is taken for a store gone.
                closed.run();
            }
            for (ChannelPromise promise : promises) {
                if (done.isSuccess()) {
                    promise.trySuccess();
                } else {
                    promise.tryFailure(done.cause());
                }
            }
        });
        ctx.write(new WindowCheckedBytes(ctx.channel(), window, bytes), written);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        dropPending();
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        dropPending();
    }

    private void dropPending() {
        if (pending.isEmpty()) {
            return;
        }
        List<Object> dropped = new ArrayList<>(pending);
        pending.clear();
        ClosedChannelException closed = new ClosedChannelException();
        for (int i = 0; i < dropped.size(); i += 2) {
            ReferenceCountUtil.release(dropped.get(i));
            ((ChannelPromise) dropped.get(i + 1)).tryFailure(closed);
        }
    }
}
