package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.TlsConfig;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.StoreCertificates;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Store connections on real sockets: over TLS, verified before use and cut without sending what
 * they still held; plain and over TLS, the bytes a store may apply a request on leave only while
 * its window is open.
 */
@ExtendWith(NoNettyLeaks.class)
class StoreTlsTest {

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

    /**
     * Closed through the TLS handler, a connection would first send all it still held, the
     * request's end included, keeping the socket open up to 3 s for it: a request the gateway gave
     * up on (its admission expired, its client gone) would reach the store whole after all.
     */
    @Test
    void aConnectionClosedAtOnceSendsNoMoreOfTheRequestItStillHeld() throws Exception {
        StoreCertificates certificate = StoreCertificates.make(dir, "store", "ip:127.0.0.1");
        CountDownLatch readFromNowOn = new CountDownLatch(1);
        try (SSLServerSocket server = (SSLServerSocket) certificate.serverContext().getServerSocketFactory().createServerSocket()) {
            server.setReceiveBufferSize(16 * 1024);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> readAfterLatch(server, readFromNowOn));
            StoreConnections connections = connections(server.getLocalPort(), certificate.pem());
            try {
                Channel store = loop.submit(() -> connections.connect(loop)).get().sync().channel();
                DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/b/k",
                        Unpooled.wrappedBuffer(new byte[BODY_BYTES]));
                request.headers().set(HttpHeaderNames.HOST, "127.0.0.1").setInt(HttpHeaderNames.CONTENT_LENGTH, BODY_BYTES);
                loop.execute(() -> store.writeAndFlush(request));
                Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> loop.submit(() -> HeldChunks.socketFull(store)).get());

                // Not waited on: a close that first sends what it held would wait for the store to read it.
                loop.submit(() -> StoreTls.closeAtOnce(store)).get();
                readFromNowOn.countDown();

                assertThat(received.get(20, TimeUnit.SECONDS)).as("bytes of the request the store received")
                        .isLessThan(BODY_BYTES / 2);
            } finally {
                connections.close();
            }
        }
    }

    /**
     * The bytes of a checked flush (see {@link SocketGate}) that the socket had no room for when
     * the window closed never leave, however the event loop comes to write them: plain and over TLS.
     */
    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void bytesTheSocketHadNoRoomForWhenTheWindowClosedNeverLeave(boolean tls) throws Exception {
        StoreCertificates certificate = StoreCertificates.make(dir, "store", "ip:127.0.0.1");
        CountDownLatch readFromNowOn = new CountDownLatch(1);
        try (ServerSocket server = tls ? certificate.serverContext().getServerSocketFactory().createServerSocket() : new ServerSocket()) {
            server.setReceiveBufferSize(16 * 1024);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> readAfterLatch(server, readFromNowOn));
            StoreConnections connections = connections(tls ? "https" : "http", server.getLocalPort(), certificate.pem());
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

    @Test
    void aStoreWhoseCertificateIsNotTrustedOrNamesAnotherHostGetsNoConnection() throws Exception {
        StoreCertificates trusted = StoreCertificates.make(dir, "trusted", "ip:127.0.0.1");
        StoreCertificates otherName = StoreCertificates.make(dir, "other", "dns:store.example");
        for (StoreCertificates served : new StoreCertificates[] {trusted, otherName}) {
            try (SSLServerSocket server = (SSLServerSocket) served.serverContext().getServerSocketFactory()
                    .createServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> readAfterLatch(server, new CountDownLatch(0)));
                // The gateway trusts only the certificate for store.example: not the first store's, and the second's names another host.
                StoreConnections connections = connections(server.getLocalPort(), otherName.pem());
                try {
                    ChannelFuture connecting = loop.submit(() -> connections.connect(loop)).get();

                    assertThat(connecting.await(10, TimeUnit.SECONDS)).isTrue();
                    assertThat(connecting.isSuccess()).as("connected to a store whose certificate is %s",
                            served == trusted ? "not trusted" : "for another name").isFalse();
                    assertThat(connecting.cause()).isInstanceOf(SSLHandshakeException.class);
                    assertThat(received.get(10, TimeUnit.SECONDS)).isZero();
                } finally {
                    connections.close();
                }
            }
        }
    }

    @Test
    void aStoreCaFileWithoutCertificatesIsRefusedNamingTheSetting() throws Exception {
        Path notPem = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
        GatewayConfig config = httpsConfig(9443, notPem);

        Throwable failure = catchThrowable(() -> StoreTls.of(config));

        assertThat(failure).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--upstream-ca: '" + notPem + "' could not be used (expected PEM CA certificates");
    }

    private StoreConnections connections(int port, Path ca) {
        return connections("https", port, ca);
    }

    private StoreConnections connections(String scheme, int port, Path ca) {
        GatewayConfig config = config(scheme, port, ca);
        return new StoreConnections(transport, config.upstreamAddress(), Duration.ofSeconds(5), WATER_MARK, StoreTls.of(config));
    }

    private static GatewayConfig httpsConfig(int port, Path ca) {
        return config("https", port, ca);
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

    /** Accepts one connection, reads nothing until {@code start}, then counts what the gateway sent until it ends; 0 if a TLS handshake failed. */
    private static long readAfterLatch(ServerSocket server, CountDownLatch start) {
        try (Socket socket = server.accept()) {
            try {
                if (socket instanceof SSLSocket secure) {
                    secure.startHandshake();
                }
            } catch (IOException refused) {
                return 0;
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
                // A close without close_notify, or a reset: what came before it is what the store has.
            }
            return total;
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
