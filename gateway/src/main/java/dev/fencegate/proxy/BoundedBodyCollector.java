package dev.fencegate.proxy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Holds one request body whole, up to a limit. The gateway streams every body except
 * DeleteObjects', whose keys must be read before the fence can judge it; this is the one place a
 * body is buffered, and the limit is why that is safe.
 */
final class BoundedBodyCollector {

    private final CompositeByteBuf body;
    private final int limit;
    private LastHttpContent last;
    private boolean handedOver;

    BoundedBodyCollector(ByteBufAllocator allocator, int limit) {
        this.body = allocator.compositeBuffer(Integer.MAX_VALUE);
        this.limit = limit;
    }

    /** Takes ownership of {@code content}. False when the body grew past the limit: then nothing is kept. */
    boolean add(HttpContent content) {
        if (body.readableBytes() + (long) content.content().readableBytes() > limit) {
            content.release();
            release();
            return false;
        }
        body.addComponent(true, content.content().retain());
        if (content instanceof LastHttpContent lastContent) {
            last = new DefaultLastHttpContent(body, lastContent.trailingHeaders().copy());
        }
        content.release();
        return true;
    }

    boolean complete() {
        return last != null;
    }

    /** A copy of the bytes so far, for parsing. */
    byte[] bytes() {
        return ByteBufUtil.getBytes(body);
    }

    /** The whole body as one last content, trailers kept; the caller owns it from here. */
    LastHttpContent take() {
        handedOver = true;
        return last;
    }

    /** Releases what is held, unless it was handed over; safe to call more than once. */
    void release() {
        if (!handedOver && body.refCnt() > 0) {
            body.release();
        }
    }
}
