package dev.fencegate.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Holds one request body whole, up to a limit, and within the budget every such body shares. The
 * gateway streams every body except DeleteObjects', whose keys must be read before the fence can
 * judge it; this is the one place a body is buffered, and the two bounds are why that is safe.
 *
 * <p>Each chunk is copied into a buffer of the collector's own, and the budget is charged for that
 * buffer's capacity: a chunk kept as it came would keep the whole read buffer it was cut from, and
 * a body of one-byte chunks would cost a component each, far more than its bytes.
 */
final class BoundedBodyCollector {

    /** What became of a chunk offered to the body. */
    enum Added {
        KEPT,
        /** The body grew past its own limit; nothing is kept. */
        TOO_LARGE,
        /** Bodies held at once, this one's included, would pass the shared budget; nothing is kept. */
        NO_ROOM
    }

    private static final int FIRST_CAPACITY = 16 * 1024;

    private final ByteBufAllocator allocator;
    private final int limit;
    private final BodyBudget budget;
    private ByteBuf body;
    /** What the budget was charged for this body and has not been given back. */
    private final AtomicLong counted = new AtomicLong();
    /** The collector and each stream still open: the body counts against the budget until all let go. */
    private final AtomicInteger holders = new AtomicInteger(1);
    private HttpHeaders trailers;
    private boolean handedOver;
    private boolean released;

    BoundedBodyCollector(ByteBufAllocator allocator, int limit, BodyBudget budget) {
        this.allocator = allocator;
        this.limit = limit;
        this.budget = budget;
    }

    /** Takes ownership of {@code content}; unless it was kept, nothing of the body is kept either. */
    Added add(HttpContent content) {
        try {
            ByteBuf chunk = content.content();
            int bytes = chunk.readableBytes();
            int held = body == null ? 0 : body.readableBytes();
            if (held + (long) bytes > limit) {
                release();
                return Added.TOO_LARGE;
            }
            if (!makeRoom(held + bytes)) {
                release();
                return Added.NO_ROOM;
            }
            body.writeBytes(chunk);
            if (content instanceof LastHttpContent last) {
                trailers = last.trailingHeaders().copy();
            }
            return Added.KEPT;
        } finally {
            content.release();
        }
    }

    /** Grows the buffer to hold {@code size} bytes, charging the budget for what it grows by; false when it may not. */
    private boolean makeRoom(int size) {
        int capacity = body == null ? 0 : body.capacity();
        if (size <= capacity && body != null) {
            return true;
        }
        int wanted = Math.min(limit, Math.max(size, Math.max(FIRST_CAPACITY, capacity * 2)));
        if (!budget.tryTake(wanted - capacity)) {
            return false;
        }
        counted.addAndGet(wanted - capacity);
        if (body == null) {
            body = allocator.buffer(wanted, limit);
        } else {
            body.capacity(wanted);
        }
        return true;
    }

    boolean complete() {
        return trailers != null;
    }

    /**
     * The bytes so far, for parsing, read in place: no copy of the body is made. The stream holds
     * the body until it is closed, so it may be read on another thread while this collector is
     * released; until then the body still counts against the budget.
     */
    InputStream stream() {
        holders.incrementAndGet();
        return new FilterInputStream(new ByteBufInputStream(body.retainedDuplicate(), true)) {
            private boolean closed;

            @Override
            public void close() throws IOException {
                if (!closed) {
                    closed = true;
                    super.close();
                    letGo();
                }
            }
        };
    }

    /** The whole body as one last content, trailers kept; the caller owns it from here, outside the budget. */
    LastHttpContent take() {
        handedOver = true;
        giveBack();
        DefaultLastHttpContent last = new DefaultLastHttpContent(body);
        last.trailingHeaders().set(trailers);
        return last;
    }

    /**
     * Releases what is held, unless it was handed over; safe to call more than once. Only the
     * collector's own reference: a stream still open keeps the body until it is closed.
     */
    void release() {
        if (handedOver || released) {
            return;
        }
        released = true;
        if (body != null) {
            body.release();
        }
        letGo();
    }

    private void letGo() {
        if (holders.decrementAndGet() == 0) {
            giveBack();
        }
    }

    private void giveBack() {
        budget.give(counted.getAndSet(0));
    }
}
