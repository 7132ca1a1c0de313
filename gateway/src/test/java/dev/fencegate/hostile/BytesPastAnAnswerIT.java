package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.StoreKind;
import dev.fencegate.config.TlsConfig;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.StoreCertificates;
import dev.fencegate.testing.TestPostgres;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store over TLS that sends bytes past an answer's framing in the next TLS record, in the same
 * socket write. The codec sees the answer end before that record is unwrapped, so it cannot tell
 * the connection holds more; a connection given back at once could be taken by the next request
 * in the same read batch (a pipelined one) and that record read as its answer. Under {@code http}, the DELETE's
 * question to the store (a PROPFIND) and the DELETE take kept-alive connections one after the
 * other, so the stray record could answer either: the DELETE (a made-up success), or the question
 * (a made-up "nothing there", letting a DELETE of a collection reach the store).
 */
class BytesPastAnAnswerIT {

    private static final String NOT_ALLOWED = "HTTP/1.1 405 Not Allowed\r\nContent-Length: 0\r\n\r\n";
    private static final String MADE_UP = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfake";

    @TempDir
    Path dir;

    @Test
    void bytesPastTheQuestionsAnswerInTheNextTlsRecordAreNotTheDeletesAnswer() throws Exception {
        List<String> received = new CopyOnWriteArrayList<>();
        withTlsStore(line -> line.startsWith("PROPFIND ") ? List.of(NOT_ALLOWED, MADE_UP) : List.of("HTTP/1.1 204 No Content\r\n\r\n"),
                received, gateway -> {
                    List<Integer> statuses = new ArrayList<>();
                    try (RawHttp raw = RawHttp.connect(gateway.port())) {
                        for (int i = 1; i <= 20; i++) {
                            statuses.add(RawHttp.status(raw.send("DELETE /b/x HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 3\r\n"
                                    + "Content-Length: 0\r\n\r\n").readResponse()));
                        }
                    }
                    assertThat(statuses).as("the store received %s", received).containsOnly(204);
                    assertThat(received).filteredOn(line -> line.contains("DELETE /b/x")).hasSize(20);
                });
    }

    @Test
    void bytesPastAnotherAnswerInTheNextTlsRecordAreNotTheQuestionsAnswer() throws Exception {
        String collection = "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/b/dir</D:href>"
                + "<D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status>"
                + "</D:propstat></D:response></D:multistatus>";
        List<String> received = new CopyOnWriteArrayList<>();
        withTlsStore(line -> {
            if (line.startsWith("GET ")) {
                return List.of("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
            }
            if (line.startsWith("PROPFIND ")) {
                return List.of("HTTP/1.1 207 Multi-Status\r\nContent-Length: " + collection.length() + "\r\n\r\n" + collection);
            }
            return List.of("HTTP/1.1 204 No Content\r\n\r\n");
        }, received, gateway -> {
            int deleted;
            try (RawHttp raw = RawHttp.connect(gateway.port())) {
                // Pipelined: the DELETE's question is asked as the GET's answer ends, in the same read batch.
                raw.send("GET /b/a HTTP/1.1\r\nHost: localhost\r\n\r\n"
                        + "DELETE /b/dir HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 3\r\nContent-Length: 0\r\n\r\n");
                assertThat(RawHttp.status(raw.readResponse())).isEqualTo(200);
                deleted = RawHttp.status(raw.readResponse());
            }
            assertThat(deleted).as("the store received %s", received).isEqualTo(400);
            assertThat(received).as("no DELETE of a collection reaches the store").noneMatch(line -> line.contains("DELETE"));
        });
    }

    @Test
    void bytesPastAnAnswerInTheNextTlsRecordAreNotThePipelinedRequestsAnswer() throws Exception {
        List<String> received = new CopyOnWriteArrayList<>();
        withTlsStore(StoreKind.S3_PATH, line -> line.startsWith("GET /b/a ")
                ? List.of("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", MADE_UP)
                : List.of("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb"), received, gateway -> {
                    String second;
                    try (RawHttp raw = RawHttp.connect(gateway.port())) {
                        raw.send("GET /b/a HTTP/1.1\r\nHost: localhost\r\n\r\nGET /b/b HTTP/1.1\r\nHost: localhost\r\n\r\n");
                        assertThat(raw.readResponse()).endsWith("\r\n\r\na");
                        second = raw.readResponse();
                    }
                    assertThat(second).as("the store received %s", received).startsWith("HTTP/1.1 200").endsWith("\r\n\r\nb");
                });
    }

    private interface WithGateway {
        void run(Gateway gateway) throws Exception;
    }

    /**
     * A TLS store answering each request head with {@code replies}' parts: the first in a TLS record
     * of its own, the rest in the next, all in one flush. One event loop in the gateway, so every
     * request of the test meets the same idle connections.
     */
    private void withTlsStore(Function<String, List<String>> replies, List<String> received, WithGateway body) throws Exception {
        withTlsStore(StoreKind.HTTP, replies, received, body);
    }

    private void withTlsStore(StoreKind kind, Function<String, List<String>> replies, List<String> received, WithGateway body)
            throws Exception {
        StoreCertificates certificate = StoreCertificates.make(dir, "store", "ip:127.0.0.1");
        SslContext tls = new JdkSslContext(certificate.serverContext(), false, ClientAuth.NONE);
        AtomicInteger connections = new AtomicInteger();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel channel) {
                            int number = connections.getAndIncrement();
                            SslHandler ssl = tls.newHandler(channel.alloc());
                            channel.pipeline().addLast(ssl, new ChannelInboundHandlerAdapter() {
                                private final StringBuilder buffered = new StringBuilder();

                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ByteBuf bytes = (ByteBuf) msg;
                                    buffered.append(bytes.toString(StandardCharsets.ISO_8859_1));
                                    bytes.release();
                                    int end;
                                    while ((end = buffered.indexOf("\r\n\r\n")) >= 0) {
                                        String head = buffered.substring(0, end);
                                        buffered.delete(0, end + 4);
                                        String line = head.substring(0, head.indexOf("\r\n"));
                                        received.add(number + " " + line);
                                        List<String> parts = replies.apply(line);
                                        ssl.setWrapDataSize(parts.get(0).length());
                                        parts.forEach(part -> ctx.write(Unpooled.copiedBuffer(part, StandardCharsets.ISO_8859_1)));
                                        ctx.flush();
                                    }
                                }
                            });
                        }
                    }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            GatewayConfig base = GatewayHarness.config(URI.create("https://127.0.0.1:" + port),
                    TestPostgres.config(TestPostgres.newSchema("bytes_past_an_answer")), Duration.ofSeconds(5));
            try (Gateway gateway = Gateway.start(new GatewayConfig(base.listen(), base.adminListen(), base.upstream(),
                    base.database(), base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(),
                    base.limits().withStoreKind(kind, "localhost"), base.safety(), 1, base.operations(), base.scopes(),
                    TlsConfig.off().trustingStoreCa(certificate.pem().toString())))) {
                body.run(gateway);
            }
        } finally {
            group.shutdownGracefully().sync();
        }
    }
}
