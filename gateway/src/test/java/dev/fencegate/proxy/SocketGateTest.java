package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.TlsConfig;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.StoreCertificates;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLSocket;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On a real socket, plain and under TLS: bytes of a checked flush that the socket had no room for
 * when the window closed never leave, however the event loop comes to write them.
 */
@ExtendWith(NoNettyLeaks.class)
class SocketGateTest {

    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(64 * 1024, 256 * 1024);
    /** Far more than the two sockets' kernel buffers hold between them. */
    private static final int BODY_BYTES = 16 * 1024 * 1024;

    private final Transport transport = Transport.best();
    private final EventLoopGroup group = transport.newGroup(1);
    private final EventLoop loop = group.next();

    @TempDir
    Path dir;

    @AfterEach
    void stopLoop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void bytesTheSocketHadNoRoomForWhenTheWindowClosedNeverLeave(boolean tls) throws Exception {
        StoreCertificates certificate = StoreCertificates.make(dir, "store", "ip:127.0.0.1");
        CountDownLatch readFromNowOn = new CountDownLatch(1);
        try (ServerSocket server = tls ? certificate.serverContext().getServerSocketFactory().createServerSocket() : new ServerSocket()) {
            server.setReceiveBufferSize(16 * 1024);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> readAfterLatch(server, readFromNowOn));
            GatewayConfig config = config(tls ? "https" : "http", server.getLocalPort(), certificate.pem());
            StoreConnections connections = new StoreConnections(transport, config.upstreamAddress(), Duration.ofSeconds(5),
                    WATER_MARK, StoreTls.of(config));
            AtomicBoolean closed = new AtomicBoolean();
            CountDownLatch told = new CountDownLatch(1);
            try {
                Channel store = loop.submit(() -> connections.connect(loop)).get().sync().channel();
                DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/b/k",
                        Unpooled.wrappedBuffer(new byte[BODY_BYTES]));
                request.headers().set(HttpHeaderNames.HOST, "127.0.0.1").setInt(HttpHeaderNames.CONTENT_LENGTH, BODY_BYTES);
                loop.execute(() -> {
                    SocketGate gate = store.pipeline().get(SocketGate.class);
                    gate.bind(closed::get, told::countDown);
                    gate.checkNextFlush();
                    store.writeAndFlush(request);
                });
                Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> loop.submit(() -> HeldChunks.socketFull(store)).get());

                closed.set(true);
                readFromNowOn.countDown();

                assertThat(received.get(20, TimeUnit.SECONDS)).as("bytes of the request the store received")
                        .isLessThan(BODY_BYTES / 2);
                assertThat(told.await(10, TimeUnit.SECONDS)).as("the sender is told the window closed").isTrue();
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !store.isOpen());
            } finally {
                connections.close();
            }
        }
    }

    private static GatewayConfig config(String scheme, int port, Path ca) {
        GatewayConfig base = GatewayHarness.config(URI.create(scheme + "://127.0.0.1:" + port),
                new DatabaseConfig("jdbc:postgresql://127.0.0.1:5432/unused", "fencegate", "postgres", "", 1, Duration.ofSeconds(2)),
                Duration.ofSeconds(5));
        return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(), base.limits(),
                base.safety(), base.ioThreads(), base.operations(), base.scopes(),
                "https".equals(scheme) ? TlsConfig.off().trustingStoreCa(ca.toString()) : TlsConfig.off());
    }

    /** Accepts one connection, reads nothing until {@code start}, then counts what came until it ends. */
    private static long readAfterLatch(ServerSocket server, CountDownLatch start) {
        try (Socket socket = server.accept()) {
            if (socket instanceof SSLSocket secure) {
                secure.startHandshake();
            }
            start.await();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[64 * 1024];
            long total = 0;
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    total += n;
                }
            } catch (IOException cut) {
                // A reset: what came before it is what the store has.
            }
            return total;
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
