package dev.fencegate.proxy;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers 408 and closes when a client goes quiet or its head does not arrive in time, unless
 * a request is being answered (a /fences call may wait on the fence store). On the event loop.
 */
final class AdminTimeoutReplies extends ChannelDuplexHandler {

    private static final Logger log = LoggerFactory.getLogger(AdminTimeoutReplies.class);

    /** Requests read and not yet answered: an answer to one pipelined before it does not end a slow raise's wait. */
    private int unanswered;
    private boolean timedOut;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FullHttpRequest) {
            unanswered++;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof FullHttpResponse && unanswered > 0) {
            unanswered--;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (!(event instanceof IdleStateEvent) && event != HeadDeadline.EXPIRED) {
            ctx.fireUserEventTriggered(event);
            return;
        }
        if (unanswered == 0 && !timedOut) {
            timedOut = true;
            FullHttpResponse timeout = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_TIMEOUT,
                    Unpooled.copiedBuffer("request timeout: no complete request in time\n", StandardCharsets.UTF_8));
            timeout.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            HttpUtil.setContentLength(timeout, timeout.content().readableBytes());
            ChannelFuture written = ctx.writeAndFlush(timeout);
            if (event == HeadDeadline.EXPIRED) {
                // A head still trickling in: a byte arriving after a plain close would reset the connection and take the 408 with it.
                LingeringClose.after(written);
            } else {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        }
    }

    /** A reset, or a client gone mid-request: the client's doing, nothing to answer. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("admin connection {} closed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
