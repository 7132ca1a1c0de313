package dev.fencegate.proxy;

import dev.fencegate.fence.SendWindow;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultMessageSizeEstimator;
import io.netty.channel.FileRegion;
import io.netty.channel.MessageSizeEstimator;
import io.netty.util.AbstractReferenceCounted;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * Bytes of a request (a flush's worth: see {@link SocketGate}), handed to the socket only while
 * the request's window is open: Netty's transports write a region by asking it to transfer itself
 * when the socket has room, so the window is checked right then, however much later that is. Once
 * it has closed, the transfer fails and the connection is reset (Netty closes a connection whose
 * write failed so), dropping what the kernel still held of the request.
 */
final class WindowCheckedBytes extends AbstractReferenceCounted implements FileRegion {

    /**
     * Counts a region's bytes toward its connection's write buffer marks, as a buffer's are
     * counted (Netty's default counts a region as none), so the sender's backpressure holds.
     */
    static final MessageSizeEstimator SIZES = () -> new MessageSizeEstimator.Handle() {
        private final MessageSizeEstimator.Handle others = DefaultMessageSizeEstimator.DEFAULT.newHandle();

        @Override
        public int size(Object msg) {
            return msg instanceof WindowCheckedBytes region ? (int) region.count : others.size(msg);
        }
    };

    private final Channel connection;
    private final SendWindow window;
    private final ByteBuf bytes;
    private final long count;
    private long transferred;

    WindowCheckedBytes(Channel connection, SendWindow window, ByteBuf bytes) {
        this.connection = connection;
        this.window = window;
        this.bytes = bytes;
        this.count = bytes.readableBytes();
    }

    /** The window closed before the socket took all of the bytes: none of the rest went out. */
    static final class WindowClosed extends IOException {
        private WindowClosed() {
            super("the write's admission expired before the store connection took all of it");
        }
    }

    @Override
    public long transferTo(WritableByteChannel target, long position) throws IOException {
        if (window.closed()) {
            try {
                connection.config().setOption(ChannelOption.SO_LINGER, 0);
            } catch (ChannelException e) {
                // The socket went meanwhile: nothing of it is left to send.
            }
            throw new WindowClosed();
        }
        long from = position;
        if (from >= count) {
            return 0;
        }
        int written = target.write(bytes.nioBuffer(bytes.readerIndex() + (int) from, (int) (count - from)));
        transferred += written;
        return written;
    }

    @Override
    public long position() {
        return 0;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long transferred() {
        return transferred;
    }

    @Override
    @Deprecated
    public long transfered() {
        return transferred;
    }

    @Override
    public WindowCheckedBytes retain() {
        super.retain();
        return this;
    }

    @Override
    public WindowCheckedBytes retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public WindowCheckedBytes touch() {
        return this;
    }

    @Override
    public WindowCheckedBytes touch(Object hint) {
        bytes.touch(hint);
        return this;
    }

    @Override
    protected void deallocate() {
        bytes.release();
    }
}
