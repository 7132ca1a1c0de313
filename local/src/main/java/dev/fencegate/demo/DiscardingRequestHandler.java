package dev.fencegate.demo;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * The do-nothing store: releases each body chunk as it arrives, so uploads of any size pass in a
 * small heap, and answers after the last chunk. Writes still wait out their delay.
 */
final class DiscardingRequestHandler extends ChannelInboundHandlerAdapter {

    private HttpHeaders headers = EmptyHttpHeaders.INSTANCE;
    private final WriteHold hold;
    private String method = "";

    DiscardingRequestHandler(WriteHold hold) {
        this.hold = hold;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpObject object && object.decoderResult().isFailure()) {
                StoreResponses.rejectMalformed(ctx);
                return;
            }
            if (msg instanceof HttpRequest request) {
                method = request.method().name();
                headers = request.headers();
            }
            if (msg instanceof LastHttpContent) {
                answer(ctx);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void answer(ChannelHandlerContext ctx) {
        switch (method) {
            case "GET", "HEAD" -> StoreResponses.answer(ctx, HttpResponseStatus.NOT_FOUND);
            case "PUT", "POST" -> hold.apply(ctx, headers, () -> StoreResponses.answer(ctx, HttpResponseStatus.CREATED));
            case "DELETE" -> hold.apply(ctx, headers, () -> StoreResponses.answer(ctx, HttpResponseStatus.NO_CONTENT));
            default -> StoreResponses.answer(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
