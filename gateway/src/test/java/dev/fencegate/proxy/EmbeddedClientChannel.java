package dev.fencegate.proxy;

import io.netty.channel.DefaultChannelId;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;

/** A client connection for handler tests whose event loop can also serve the store connections' Bootstrap. */
final class EmbeddedClientChannel extends EmbeddedChannel {

    private EventLoop loop;

    EmbeddedClientChannel() {
        super(DefaultChannelId.newInstance(), false, false);
    }

    @Override
    public EventLoop eventLoop() {
        if (loop == null) {
            loop = ResolvableLoop.wrap(super.eventLoop());
        }
        return loop;
    }
}
