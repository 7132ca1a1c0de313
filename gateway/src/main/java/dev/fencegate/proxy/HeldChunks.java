package dev.fencegate.proxy;

import dev.fencegate.fence.SendWindow;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Request body held back from the store until what was written before it has gone to the kernel:
 * the body from the byte the store applies the write on (its last byte; for an aws-chunked body,
 * its data's last), then whatever came after it. Made by {@link StoreRequestSender} on its first
 * hold: most writes never hold anything. Runs on the client's event loop; as a task it sends what
 * it holds.
 */
final class HeldChunks implements Runnable {

    private final StoreExchange exchange;
    private final StoreRequestSender sender;
    private final Channel store;
    private final SendWindow window;
    private final ArrayDeque<HttpContent> held = new ArrayDeque<>(2);

    HeldChunks(StoreExchange exchange, StoreRequestSender sender, Channel store, SendWindow window) {
        this.exchange = exchange;
        this.sender = sender;
        this.store = store;
        this.window = window;
    }

    /** Whether bytes flushed to the store connection wait in its buffer for the socket to take them. */
    static boolean socketFull(Channel store) {
        ChannelOutboundBuffer pending = store.unsafe().outboundBuffer();
        return pending != null && !pending.isEmpty();
    }

    /**
     * The window is checked as a chunk is handed to the connection, but a chunk queued behind a
     * full socket leaves when the socket drains, and the event loop flushes it before it runs its
     * timers, so after a pause of this process (a long GC, a stalled VM) the byte the store applies
     * the write on would go out unchecked, after its registration expired and a higher token went
     * ahead. So under backpressure the chunk holding that byte (the request's last; for an
     * aws-chunked body, the last of its data, which S3Proxy applies on) is written only up to it,
     * and the rest only once everything before it has gone to the kernel, after the window is
     * checked again. The store applies nothing before that byte.
     */
    void holdFrom(HttpContent content, int decisive) {
        if (decisive > 0) {
            store.write(new DefaultHttpContent(content.content().readRetainedSlice(decisive)));
        }
        held.add(content);
        store.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(flushed -> store.eventLoop().execute(this));
    }

    /** Came in the same read as what is held: it follows it out. */
    void add(HttpContent content) {
        held.add(content);
    }

    boolean holding() {
        return !held.isEmpty();
    }

    /** Sends what is held, once what was written before it has gone to the kernel. */
    @Override
    public void run() {
        HttpContent first = held.poll();
        if (first == null) {
            return;
        }
        if (exchange.answeredOrOver()) {
            // Answered already (its answer may still be under its check): the rest has nowhere to go.
            first.release();
            release();
            return;
        }
        if (window.closed()) {
            first.release();
            release();
            sender.expire();
            return;
        }
        ChannelFuture written = store.writeAndFlush(first);
        sender.failIfSentLate(written);
        if (first instanceof LastHttpContent) {
            sender.ended(written);
            return;
        }
        if (held.isEmpty()) {
            sender.readClientWhenWritable();
            return;
        }
        // What came after it in the same read goes as it would have, in order, each chunk checked.
        List<HttpContent> after = new ArrayList<>(held);
        held.clear();
        after.forEach(sender::onClientContent);
    }

    void release() {
        HttpContent content;
        while ((content = held.poll()) != null) {
            content.release();
        }
    }
}
