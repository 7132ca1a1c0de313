package dev.fencegate.proxy;

import io.netty.channel.Channel;
import java.util.concurrent.atomic.AtomicInteger;

/** At most so many client connections at once: one over the limit is closed as it is accepted. */
final class ConnectionLimit {

    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    ConnectionLimit(int max) {
        this.max = max;
    }

    /** Counts {@code channel} in; false (and the channel closed) when the limit is reached. */
    boolean admit(Channel channel) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            channel.close();
            return false;
        }
        channel.closeFuture().addListener(closed -> open.decrementAndGet());
        return true;
    }
}
