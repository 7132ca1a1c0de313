package dev.fencegate.demo;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;

/** Answers each aggregated client request from the ledger, as {@link MemoryObjectStore} describes. */
final class ObjectRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    // Spelled out rather than taken from the gateway: this store is a module the gateway's tests use.
    private static final String FENCING_TOKEN = "Fencing-Token";
    private static final String FENCING_HOLDER = "Fencing-Holder";

    private final StoreLedger ledger;
    private final WriteHold hold;

    ObjectRequestHandler(StoreLedger ledger, WriteHold hold) {
        this.ledger = ledger;
        this.hold = hold;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            StoreResponses.rejectMalformed(ctx);
            return;
        }
        String path = StoreResponses.pathOf(request.uri());
        String method = request.method().name();
        switch (method) {
            case "GET", "HEAD" -> ledger.get(path).ifPresentOrElse(
                    object -> StoreResponses.answerObject(ctx, object, method.equals("GET")),
                    () -> StoreResponses.answer(ctx, HttpResponseStatus.NOT_FOUND));
            case "PUT", "POST" -> {
                WriteRequest write = writeOf(request, path);
                hold.apply(ctx, request.headers(), () -> StoreResponses.answer(ctx,
                        ledger.put(write) ? HttpResponseStatus.CREATED : HttpResponseStatus.NO_CONTENT));
            }
            case "DELETE" -> {
                WriteRequest write = writeOf(request, path);
                hold.apply(ctx, request.headers(), () -> StoreResponses.answer(ctx,
                        ledger.delete(write) ? HttpResponseStatus.NO_CONTENT : HttpResponseStatus.NOT_FOUND));
            }
            default -> StoreResponses.answer(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED);
        }
    }

    static final String REQUEST_ID = "X-Request-Id";

    // Copies the body out, so no buffer is held during the delay or lost if the loop shuts down.
    private static WriteRequest writeOf(FullHttpRequest request, String path) {
        HttpHeaders headers = request.headers();
        return new WriteRequest(request.method().name(), path,
                headers.get(FENCING_TOKEN), headers.get(FENCING_HOLDER),
                headers.get(REQUEST_ID), headers.get(HttpHeaderNames.CONTENT_TYPE), ByteBufUtil.getBytes(request.content()));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
