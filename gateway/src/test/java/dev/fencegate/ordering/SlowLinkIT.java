package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A slow link between the gateway and the store: the gateway hands a whole body to its socket at
 * once (the kernel takes megabytes), the store does not answer within the upstream timeout, and
 * the gateway holds the resource for one more upstream timeout before a higher token goes ahead.
 * Were the connection closed with a FIN, the link would go on delivering the old body, and the
 * store would receive it whole and apply it after the newer write; it is reset instead.
 */
@ExtendWith(NoNettyLeaks.class)
class SlowLinkIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final int BODY_BYTES = 2 * 1024 * 1024;
    private static final int LINK_BYTES_PER_SECOND = 256 * 1024;

    @Test
    void aBodyStillOnTheLinkAfterItsTimeoutNeverLandsAfterAHigherToken() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("slow_link"));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             SlowLink link = SlowLink.start(store.port(), LINK_BYTES_PER_SECOND);
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + link.port()),
                     database, Duration.ofSeconds(2)))) {
            HttpResponse<String> old = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/jobs/slow"))
                    .header("Fencing-Token", "5").PUT(HttpRequest.BodyPublishers.ofByteArray(new byte[BODY_BYTES])).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(old.statusCode()).as("the link delivers 2 MiB in 8 s, the upstream timeout is 2 s").isEqualTo(504);

            HttpResponse<String> newer = PausedGatewayIT.putUntilAnswered(gateway.port(), "/jobs/slow", 6);
            assertThat(newer.statusCode()).as(newer.body()).isIn(201, 204);

            // Wait until the link has delivered what the gateway handed its socket before the timeout.
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(link::idle);
            Thread.sleep(500);
            List<String> tokens = store.appliedTo("/jobs/slow").stream().map(AppliedWrite::fencingToken).toList();
            assertThat(tokens).as("tokens in the store's apply order").isIn(List.of("6"), List.of("5", "6"));
        }
    }

    /** Relays connections to a target, reading from the gateway at a fixed rate; an end of input is passed on as a half-close. */
    private static final class SlowLink implements AutoCloseable {

        private final ServerSocket server;
        private final int target;
        private final int bytesPerSecond;
        private volatile long lastByteNanos = System.nanoTime();

        private SlowLink(ServerSocket server, int target, int bytesPerSecond) {
            this.server = server;
            this.target = target;
            this.bytesPerSecond = bytesPerSecond;
        }

        static SlowLink start(int target, int bytesPerSecond) throws IOException {
            ServerSocket server = new ServerSocket();
            server.setReceiveBufferSize(64 * 1024);
            server.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SlowLink link = new SlowLink(server, target, bytesPerSecond);
            Thread acceptor = new Thread(link::accept, "slow-link");
            acceptor.setDaemon(true);
            acceptor.start();
            return link;
        }

        int port() {
            return server.getLocalPort();
        }

        /** Nothing relayed towards the store for a second. */
        boolean idle() {
            return System.nanoTime() - lastByteNanos > Duration.ofSeconds(1).toNanos();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket gateway = server.accept();
                    Socket store = new Socket(InetAddress.getLoopbackAddress(), target);
                    pump(gateway, store, true);
                    pump(store, gateway, false);
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void pump(Socket from, Socket to, boolean slow) {
            Thread thread = new Thread(() -> {
                byte[] buffer = new byte[16 * 1024];
                try {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        out.write(buffer, 0, n);
                        out.flush();
                        if (slow) {
                            lastByteNanos = System.nanoTime();
                            Thread.sleep(n * 1000L / bytesPerSecond);
                        }
                    }
                    to.shutdownOutput();
                } catch (IOException | InterruptedException e) {
                    // One side went away.
                }
            }, "slow-link-pump");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
