package dev.fencegate.loadtest;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/** Native epoll where it loads, NIO elsewhere. */
record Transport(String name, IoHandlerFactory ioHandlers, Class<? extends SocketChannel> channelType) {

    static Transport pick() {
        if (Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollSocketChannel.class);
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioSocketChannel.class);
    }

    EventLoopGroup group(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, ioHandlers);
    }
}
