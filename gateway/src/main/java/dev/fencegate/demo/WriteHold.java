package dev.fencegate.demo;

import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.TimeUnit;

/** Holds each write for its drawn delay on the connection's own event loop, which it never blocks. */
final class WriteHold {

    private final WriteDelays delays;

    WriteHold(WriteDelays delays) {
        this.delays = delays;
    }

    void apply(ChannelHandlerContext ctx, Runnable applyAndAnswer) {
        long nanos = delays.nextNanos();
        if (nanos == 0) {
            applyAndAnswer.run();
            return;
        }
        // A pipelined request waits in the FlowControlHandler meanwhile, so answers keep request order.
        ChannelConfig config = ctx.channel().config();
        config.setAutoRead(false);
        ctx.executor().schedule(() -> {
            try {
                applyAndAnswer.run();
            } finally {
                config.setAutoRead(true);
            }
        }, nanos, TimeUnit.NANOSECONDS);
    }
}
