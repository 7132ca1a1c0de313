package dev.fencegate.proxy;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelId;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.SocketChannelConfig;
import io.netty.util.internal.PlatformDependent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * A store connection that is an EmbeddedChannel, so StoreConnections' own bootstrap can be used
 * in a handler test: the bootstrap registers it on the client's EmbeddedEventLoop, its connect
 * succeeds at once, and what the gateway forwards lands in its outbound queue.
 */
public final class EmbeddedStoreChannel extends EmbeddedChannel implements SocketChannel {

    /** Every store connection opened on this thread, oldest first. */
    static final ThreadLocal<List<EmbeddedStoreChannel>> OPENED = ThreadLocal.withInitial(ArrayList::new);

    private SocketChannelConfig socketConfig;
    private EventLoop loop;

    public EmbeddedStoreChannel() {
        super(DefaultChannelId.newInstance(), false, false);
        OPENED.get().add(this);
    }

    /** Store connections opened on this thread from now on take nothing written to them until {@link #takeWhatWasWritten}. */
    static final ThreadLocal<Boolean> OPEN_FULL = ThreadLocal.withInitial(() -> false);

    private boolean full = OPEN_FULL.get();

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (!full) {
            super.doWrite(in);
        }
    }

    /**
     * The socket has room again: what waits in the connection's buffer is written as Netty's
     * transports write it then, straight from the buffer, through no handler of the pipeline.
     */
    void takeWhatWasWritten() {
        full = false;
        unsafe().flush();
    }

    /**
     * A region is written as a socket writes it, by asking it to transfer itself, so a window it
     * checks then is checked here too; what it transferred lands in the outbound queue as bytes.
     */
    @Override
    protected void handleOutboundMessage(Object msg) {
        if (!(msg instanceof FileRegion region)) {
            super.handleOutboundMessage(msg);
            return;
        }
        try {
            ByteArrayOutputStream sent = new ByteArrayOutputStream();
            WritableByteChannel socket = Channels.newChannel(sent);
            while (region.transferred() < region.count()) {
                region.transferTo(socket, region.transferred());
            }
            super.handleOutboundMessage(Unpooled.wrappedBuffer(sent.toByteArray()));
        } catch (IOException e) {
            PlatformDependent.throwException(e);
        } finally {
            region.release();
        }
    }

    static Transport transport() {
        return new Transport("embedded", null, null, EmbeddedStoreChannel.class, null);
    }

    /** The client's loop, which it is registered on, in a form the Bootstrap's resolver accepts. */
    @Override
    public EventLoop eventLoop() {
        if (loop == null) {
            loop = ResolvableLoop.wrap(super.eventLoop());
        }
        return loop;
    }

    /** The channel's own config, seen as a socket's: socket-only options are unknown (and ignored). */
    @Override
    public SocketChannelConfig config() {
        if (socketConfig == null) {
            ChannelConfig plain = super.config();
            socketConfig = (SocketChannelConfig) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {SocketChannelConfig.class}, (proxy, method, args) -> {
                        Method same = findOnChannelConfig(method);
                        if (same == null) {
                            return defaultValue(method.getReturnType(), proxy);
                        }
                        Object result = same.invoke(plain, args);
                        return result == plain ? proxy : result;
                    });
        }
        return socketConfig;
    }

    private static Method findOnChannelConfig(Method method) {
        try {
            return ChannelConfig.class.getMethod(method.getName(), method.getParameterTypes());
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    private static Object defaultValue(Class<?> type, Object proxy) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        return type.isInstance(proxy) ? proxy : null;
    }

    @Override
    public ServerSocketChannel parent() {
        return null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return null;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    public boolean isInputShutdown() {
        return false;
    }

    @Override
    public ChannelFuture shutdownInput() {
        return close();
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        return close(promise);
    }

    @Override
    public boolean isOutputShutdown() {
        return false;
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return close();
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        return close(promise);
    }

    @Override
    public boolean isShutdown() {
        return !isOpen();
    }

    @Override
    public ChannelFuture shutdown() {
        return close();
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        return close(promise);
    }
}
