package dev.fencegate.proxy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.InputStream;

/**
 * Holds one request body whole, up to a limit, and within the budget every such body shares. The
 * gateway streams every body except DeleteObjects', whose keys must be read before the fence can
 * judge it; this is the one place a body is buffered, and the two bounds are why that is safe.
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

    private final CompositeByteBuf body;
    private final int limit;
    private final BodyBudget budget;
    private long counted;
    private LastHttpContent last;
    private boolean handedOver;

    BoundedBodyCollector(ByteBufAllocator allocator, int limit, BodyBudget budget) {
        this.body = allocator.compositeBuffer(Integer.MAX_VALUE);
        this.limit = limit;
        this.budget = budget;
    }

    /** Takes ownership of {@code content}; unless it was kept, nothing of the body is kept either. */
    Added add(HttpContent content) {
        int bytes = content.content().readableBytes();
        Added added = body.readableBytes() + (long) bytes > limit ? Added.TOO_LARGE
                : budget.tryTake(bytes) ? Added.KEPT : Added.NO_ROOM;
        if (added != Added.KEPT) {
            content.release();
            release();
            return added;
        }
        counted += bytes;
        body.addComponent(true, content.content().retain());
        if (content instanceof LastHttpContent lastContent) {
            last = new DefaultLastHttpContent(body, lastContent.trailingHeaders().copy());
        }
        content.release();
        return added;
    }

    boolean complete() {
        return last != null;
    }

    /**
     * The bytes so far, for parsing, read in place: no copy of the body is made. The stream holds
     * the body until it is closed, so it may be read on another thread while this collector is
     * released.
     */
    InputStream stream() {
        return new ByteBufInputStream(body.retainedDuplicate(), true);
    }

    /** The whole body as one last content, trailers kept; the caller owns it from here, outside the budget. */
    LastHttpContent take() {
        handedOver = true;
        giveBack();
        return last;
    }

    /** Releases what is held, unless it was handed over; safe to call more than once. */
    void release() {
        giveBack();
        if (!handedOver && body.refCnt() > 0) {
            body.release();
        }
    }

    private void giveBack() {
        budget.give(counted);
        counted = 0;
    }
}
