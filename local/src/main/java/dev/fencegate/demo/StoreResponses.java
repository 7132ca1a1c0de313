package dev.fencegate.demo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/** The store's answers; every one has a self-defined length so the connection can be kept alive. */
final class StoreResponses {

    static final String ALLOWED_METHODS = "GET, HEAD, PUT, POST, DELETE";

    private StoreResponses() {
    }

    /** The request path without its query string: the key objects are stored under. */
    static String pathOf(String uri) {
        int query = uri.indexOf('?');
        return query < 0 ? uri : uri.substring(0, query);
    }

    static void answer(ChannelHandlerContext ctx, HttpResponseStatus status) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER);
        // RFC 9110 forbids Content-Length on 204.
        if (!status.equals(HttpResponseStatus.NO_CONTENT)) {
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        }
        if (status.equals(HttpResponseStatus.METHOD_NOT_ALLOWED)) {
            response.headers().set(HttpHeaderNames.ALLOW, ALLOWED_METHODS);
        }
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    /** 200 with the object's length and type; the body only when {@code withBody} (not for HEAD). */
    static void answerObject(ChannelHandlerContext ctx, StoredObject object, boolean withBody) {
        // Stored arrays are never mutated, so wrapping one without a copy is safe.
        ByteBuf content = withBody ? Unpooled.wrappedBuffer(object.body()) : Unpooled.EMPTY_BUFFER;
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, content);
        HttpHeaders headers = response.headers();
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, object.body().length);
        if (object.contentType() != null) {
            headers.set(HttpHeaderNames.CONTENT_TYPE, object.contentType());
        }
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    /** 400, then close: after a framing error the rest of the stream cannot be trusted. */
    static void rejectMalformed(ChannelHandlerContext ctx) {
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST, Unpooled.EMPTY_BUFFER);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
