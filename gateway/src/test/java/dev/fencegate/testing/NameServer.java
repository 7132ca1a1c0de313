package dev.fencegate.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A DNS server on a loopback UDP port that knows one name, answering its A query with 127.0.0.1
 * after a delay, or answering nothing at all. Other names get NXDOMAIN, AAAA queries an empty
 * answer. It records every name asked.
 */
public final class NameServer implements AutoCloseable {

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel channel;
    private final List<String> asked = new CopyOnWriteArrayList<>();

    private NameServer(String name, Duration delay, boolean silent) {
        String known = name.toLowerCase(Locale.ROOT) + ".";
        try {
            channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                    .handler(new ChannelInitializer<DatagramChannel>() {
                        @Override
                        protected void initChannel(DatagramChannel ch) {
                            ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(),
                                    new SimpleChannelInboundHandler<DatagramDnsQuery>() {
                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) {
                                            DnsQuestion question = query.recordAt(DnsSection.QUESTION);
                                            String asking = question.name().toLowerCase(Locale.ROOT);
                                            asked.add(asking);
                                            if (silent) {
                                                return;
                                            }
                                            DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
                                            response.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(question.name(), question.type()));
                                            if (!asking.equals(known)) {
                                                response.setCode(DnsResponseCode.NXDOMAIN);
                                            } else if (question.type() == DnsRecordType.A) {
                                                response.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(question.name(),
                                                        DnsRecordType.A, 60, Unpooled.wrappedBuffer(new byte[] {127, 0, 0, 1})));
                                            }
                                            ctx.executor().schedule(() -> ctx.writeAndFlush(response), delay.toMillis(), TimeUnit.MILLISECONDS);
                                        }
                                    });
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw new IllegalStateException(e);
        }
    }

    /** Answers {@code name} with 127.0.0.1 after {@code delay}. */
    public static NameServer answering(String name, Duration delay) {
        return new NameServer(name, delay, false);
    }

    /** Takes every query and answers none. */
    public static NameServer silent() {
        return new NameServer("", Duration.ZERO, true);
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Every name asked so far, lower-case, with its final dot. */
    public List<String> asked() {
        return List.copyOf(asked);
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
