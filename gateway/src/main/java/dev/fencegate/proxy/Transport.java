package dev.fencegate.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/** Native epoll where the platform has it, NIO elsewhere. */
record Transport(String name, IoHandlerFactory handlers,
                 Class<? extends ServerSocketChannel> serverChannel,
                 Class<? extends SocketChannel> clientChannel,
                 Class<? extends DatagramChannel> datagramChannel) {

    static Transport best() {
        if (Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class, EpollSocketChannel.class,
                    EpollDatagramChannel.class);
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, NioSocketChannel.class,
                NioDatagramChannel.class);
    }

    /**
     * Keeps at most {@code bytes} of a connection's writes unsent in the kernel (Linux's
     * {@code TCP_NOTSENT_LOWAT}, under epoll; NIO cannot set it): the rest waits in the gateway,
     * where a write's send window can still stop it, rather than in a send buffer the kernel grows
     * to megabytes and delivers whatever this process does.
     */
    Bootstrap boundUnsent(Bootstrap bootstrap, long bytes) {
        return Epoll.isAvailable() && clientChannel == EpollSocketChannel.class
                ? bootstrap.option(EpollChannelOption.TCP_NOTSENT_LOWAT, bytes) : bootstrap;
    }

    EventLoopGroup newGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, handlers);
    }
}
