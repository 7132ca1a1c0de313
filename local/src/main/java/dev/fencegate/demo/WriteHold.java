package dev.fencegate.demo;

import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.concurrent.TimeUnit;

/** Holds each write for its drawn delay on the connection's own event loop, which it never blocks. */
final class WriteHold {

    private final WriteDelays delays;

    WriteHold(WriteDelays delays) {
        this.delays = delays;
    }

    /** A write may name its own delay, so a test can script which of two writes the store applies first. */
    static final String DELAY_HEADER = "X-Store-Delay-Ms";

    void apply(ChannelHandlerContext ctx, HttpHeaders headers, Runnable applyAndAnswer) {
        String named = headers.get(DELAY_HEADER);
        long nanos = named != null && named.matches("\\d{1,6}") ? TimeUnit.MILLISECONDS.toNanos(Long.parseLong(named))
                : delays.nextNanos();
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
