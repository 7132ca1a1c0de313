package dev.fencegate.demo;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;

/** Counts each request when its headers arrive, before any body is aggregated or dropped. */
@Sharable
final class RequestCounter extends ChannelInboundHandlerAdapter {

    private final StoreLedger ledger;

    RequestCounter(StoreLedger ledger) {
        this.ledger = ledger;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            ledger.countRequest();
        }
        ctx.fireChannelRead(msg);
    }
}
