package dev.fencegate.proxy;

import dev.fencegate.config.HostPort;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.util.concurrent.FastThreadLocal;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * Keep-alive connections to the store, one idle list per event loop. A connection is only used
 * on the loop that owns it, the loop of the client it serves, so nothing here is shared.
 */
final class StoreConnections {

    private static final int MAX_IDLE_PER_LOOP = 256;
    /** What the kernel may hold of a request beyond what is on the wire: see {@link Transport#boundUnsent}. */
    private static final long UNSENT_IN_KERNEL = 128 * 1024;

    private final Bootstrap bootstrap;
    private final HostPort store;
    private final FastThreadLocal<ArrayDeque<Channel>> idle = new FastThreadLocal<>() {
        @Override
        protected ArrayDeque<Channel> initialValue() {
            return new ArrayDeque<>();
        }
    };

    StoreConnections(Transport transport, HostPort store, Duration connectTimeout, WriteBufferWaterMark waterMark) {
        this.store = store;
        this.bootstrap = transport.boundUnsent(new Bootstrap(), UNSENT_IN_KERNEL)
                .channel(transport.clientChannel())
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        channel.pipeline().addLast(new HttpClientCodec(), new StoreResponseReceiver());
                    }
                });
    }

    /** An open connection on {@code loop}: an idle one if there is one, a new one otherwise. Call on the loop. */
    ChannelFuture acquire(EventLoop loop) {
        ArrayDeque<Channel> list = idle.get();
        Channel channel;
        while ((channel = list.pollFirst()) != null) {
            if (channel.isActive()) {
                return channel.newSucceededFuture();
            }
        }
        return bootstrap.clone(loop).connect(store.host(), store.port());
    }

    /** Returns a connection whose exchange finished cleanly. Call on its loop. */
    void release(Channel channel) {
        ArrayDeque<Channel> list = idle.get();
        if (!channel.isActive() || list.size() >= MAX_IDLE_PER_LOOP) {
            channel.close();
            return;
        }
        list.addFirst(channel);
        // Keep a read pending while idle, so a close by the store is noticed before reuse.
        channel.read();
    }
}
