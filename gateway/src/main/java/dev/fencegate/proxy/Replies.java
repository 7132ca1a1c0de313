package dev.fencegate.proxy;

import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/** Answers the gateway gives itself: always a problem body, status from the outcome table. */
final class Replies {

    static final String RETRY_AFTER_SECONDS = "1";

    private Replies() {
    }

    static ChannelFuture problem(ChannelHandlerContext ctx, Problem problem, boolean close) {
        Outcome outcome = problem.outcome();
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(outcome.status()), Unpooled.wrappedBuffer(problem.toJson()));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, Problem.MEDIA_TYPE)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        switch (outcome) {
            case FENCE_UNAVAILABLE -> response.headers().set(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
            case METHOD_NOT_ALLOWED -> response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD, OPTIONS, PUT, POST, PATCH, DELETE");
            default -> { }
        }
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        ChannelFuture written = ctx.writeAndFlush(response);
        if (close) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
        return written;
    }
}
