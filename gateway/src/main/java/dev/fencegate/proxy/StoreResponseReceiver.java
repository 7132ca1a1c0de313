package dev.fencegate.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslCloseCompletionEvent;
import io.netty.util.ReferenceCountUtil;

/** The store-facing end of a connection: hands what the store sends to the exchange using it. */
final class StoreResponseReceiver extends ChannelInboundHandlerAdapter {

    private StoreListener exchange;

    void bind(StoreListener exchange) {
        this.exchange = exchange;
    }

    void unbind() {
        this.exchange = null;
    }

    /**
     * Goes before the HTTP decoder: a byte arriving on an idle connection makes it unusable, even
     * the start of a head the decoder would keep until the next request's answer completed it
     * (a store that sent more after an answer that ends on its own, such as a body after a HEAD's).
     */
    ChannelInboundHandlerAdapter idleBytes() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (exchange == null && (!(msg instanceof ByteBuf bytes) || bytes.isReadable())) {
                    ReferenceCountUtil.release(msg);
                    ctx.close();
                    return;
                }
                ctx.fireChannelRead(msg);
            }
        };
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (exchange == null) {
            // Nothing is owed on an idle connection: anything arriving means it is unusable.
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        exchange.onStoreMessage(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (exchange != null) {
            exchange.onStoreReadComplete();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (exchange != null && ctx.channel().isWritable()) {
            exchange.onStoreWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * The store closed its side of TLS ({@code close_notify}), keeping TCP open: it reads nothing
     * more, so a request sent now would wait out its timeout. The connection goes as if it had
     * closed, at once, sending nothing it still held.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof SslCloseCompletionEvent) {
            StoreTls.closeAtOnce(ctx.channel());
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (exchange != null) {
            exchange.onStoreClosed(null);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (exchange != null) {
            exchange.onStoreClosed(cause);
        }
        ctx.close();
    }
}
