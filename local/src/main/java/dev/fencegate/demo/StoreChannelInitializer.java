package dev.fencegate.demo;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.flow.FlowControlHandler;

/** The pipeline of one client connection: aggregating in the recording store, streaming in discard mode. */
final class StoreChannelInitializer extends ChannelInitializer<SocketChannel> {

    private final MemoryObjectStore.Options options;
    private final StoreLedger ledger;
    private final RequestCounter requestCounter;
    private final WriteHold hold;

    StoreChannelInitializer(MemoryObjectStore.Options options, StoreLedger ledger, WriteHold hold) {
        this.options = options;
        this.ledger = ledger;
        this.requestCounter = new RequestCounter(ledger);
        this.hold = hold;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ledger.countConnection();
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(), requestCounter);
        if (options.discard()) {
            // Without an aggregator nobody else answers "Expect: 100-continue".
            pipeline.addLast(new HttpServerExpectContinueHandler());
        } else {
            pipeline.addLast(new HttpObjectAggregator(options.maxBodyBytes()));
        }
        // Holds requests decoded while a write is delayed (WriteHold turns reading off meanwhile).
        pipeline.addLast(new FlowControlHandler());
        pipeline.addLast(options.discard()
                ? new DiscardingRequestHandler(hold)
                : new ObjectRequestHandler(ledger, hold));
    }
}
