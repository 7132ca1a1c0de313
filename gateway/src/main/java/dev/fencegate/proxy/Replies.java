package dev.fencegate.proxy;

import dev.fencegate.http.ErrorFormat;
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
import java.util.concurrent.ThreadLocalRandom;

/** Answers the gateway gives itself: status from the outcome table, body in the client's error format. */
final class Replies {

    static final String RETRY_AFTER_SECONDS = "1";
    private static final String AMZ_REQUEST_ID = "x-amz-request-id";

    private Replies() {
    }

    /** {@code target} is the request's; its path is named in S3 errors when the problem names no resource. */
    static ChannelFuture problem(ChannelHandlerContext ctx, Problem problem, boolean close, ErrorFormat format, String target) {
        return problem(ctx, problem, close, false, format, target);
    }

    /** With {@code lingering}, a closing answer closes as {@link LingeringClose} does: for a request whose body is still coming. */
    static ChannelFuture problem(ChannelHandlerContext ctx, Problem problem, boolean close, boolean lingering, ErrorFormat format,
                                 String target) {
        Outcome outcome = problem.outcome();
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        String requestId = Long.toHexString(ThreadLocalRandom.current().nextLong()).toUpperCase(java.util.Locale.ROOT);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(outcome.status()), Unpooled.wrappedBuffer(format.body(problem, path, requestId)));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, format.contentType())
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        if (format == ErrorFormat.S3_XML) {
            response.headers().set(AMZ_REQUEST_ID, requestId);
        }
        switch (outcome) {
            case FENCE_UNAVAILABLE, FENCE_DRAINING, ADMISSION_EXPIRED, BODIES_BUSY -> response.headers().set(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
            case METHOD_NOT_ALLOWED -> response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD, OPTIONS, PUT, POST, PATCH, DELETE");
            default -> { }
        }
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        ChannelFuture written = ctx.writeAndFlush(response);
        if (close && lingering) {
            LingeringClose.after(written);
        } else if (close) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
        return written;
    }
}
