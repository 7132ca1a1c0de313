package dev.fencegate.loadtest;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;

/** Target-facing inbound end of a lane's pipeline: one per channel, since lanes reconnect. */
final class ResponseReader extends SimpleChannelInboundHandler<FullHttpResponse> {
    private final HttpLane lane;

    ResponseReader(HttpLane lane) {
        this.lane = lane;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
        lane.answered(response.status().code(), HttpUtil.isKeepAlive(response));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        lane.closed(ctx.channel());
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
