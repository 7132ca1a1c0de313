package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.HostPort;
import dev.fencegate.config.Limits;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Slowloris: a head trickled one byte at a time resets the idle timer on every byte, so only a
 * deadline on the whole head bounds it. The admin port is bounded the same way.
 */
@ExtendWith(NoNettyLeaks.class)
class HeadDeadlineIT {

    private static final Duration HEAD_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(4);
    private static final int MAX_CONNECTIONS = 4;
    /** Far below the idle timeout, far above the head deadline: an answer by then came from the deadline. */
    private static final Duration CUT_OFF_BY = Duration.ofMillis(3_000);
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> new GatewayConfig(
                new HostPort("127.0.0.1", 0), new HostPort("127.0.0.1", 0), upstream,
                TestPostgres.config(TestPostgres.newSchema(HeadDeadlineIT.class.getSimpleName())),
                Duration.ofSeconds(2), Duration.ofSeconds(10), IDLE_TIMEOUT,
                new Limits(8_192, 16_384, 0, 100, MAX_CONNECTIONS, "", "localhost", dev.fencegate.config.StoreKind.S3_PATH, HEAD_TIMEOUT), SafetyConfig.defaults(), 2));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void aHeadTrickledOneByteAtATimeGets408AtTheHeadDeadline() throws Exception {
        assertTrickledHeadCutOff(gateway.port());
    }

    @Test
    void aConnectionThatSendsNothingGets408AtTheHeadDeadlineCountedFromAccept() throws Exception {
        try (RawHttp raw = gateway.raw()) {
            long started = System.nanoTime();
            String response = raw.readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(408);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(CUT_OFF_BY);
            assertThat(raw.closedByPeer()).isTrue();
        }
    }

    @Test
    void theSecondHeadOnAKeptConnectionIsBoundedFromItsFirstByteNotFromTheLastResponse() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", gateway.port())) {
            socket.setSoTimeout(8_000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /kept/1 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(RawHttp.status(readResponse(socket.getInputStream()))).isEqualTo(404);
            // Quiet for longer than the head deadline, within the idle timeout: a kept connection may wait.
            Thread.sleep(HEAD_TIMEOUT.toMillis() * 2);
            out.write("GET /kept/2 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(RawHttp.status(readResponse(socket.getInputStream()))).isEqualTo(404);
            assertThat(trickleUntilAnswered(socket)).isLessThan(CUT_OFF_BY);
            assertThat(RawHttp.status(readResponse(socket.getInputStream()))).isEqualTo(408);
        }
    }

    @Test
    void theAdminPortCutsATrickledHeadAt408() throws Exception {
        assertTrickledHeadCutOff(gateway.gateway.adminPort());
    }

    @Test
    void theAdminPortAnswersAClientSilentMidBody408AtTheIdleTimeout() throws Exception {
        try (RawHttp raw = RawHttp.connect(gateway.gateway.adminPort())) {
            raw.timeout((int) IDLE_TIMEOUT.toMillis() * 3);
            long started = System.nanoTime();
            raw.send("POST /fences/%2Fb%2Fidle?token=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\nabc");
            assertThat(RawHttp.status(raw.readResponse())).isEqualTo(408);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(IDLE_TIMEOUT.minusMillis(500));
            assertThat(raw.closedByPeer()).isTrue();
        }
        assertThat(gateway.fenceRow("/b/idle")).isEqualTo(-1);
    }

    @Test
    void theAdminPortClosesConnectionsPastTheCapAndReusesFreedSlots() throws Exception {
        List<RawHttp> held = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_CONNECTIONS; i++) {
                RawHttp raw = RawHttp.connect(gateway.gateway.adminPort());
                assertThat(RawHttp.status(raw.send("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").readResponse())).isEqualTo(200);
                held.add(raw);
            }
            try (RawHttp extra = RawHttp.connect(gateway.gateway.adminPort())) {
                assertThat(extra.closedByPeer()).isTrue();
            }
            held.remove(0).close();
            Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                try (RawHttp again = RawHttp.connect(gateway.gateway.adminPort())) {
                    assertThat(RawHttp.status(again.send("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").readResponse()))
                            .isEqualTo(200);
                }
            });
        } finally {
            for (RawHttp raw : held) {
                raw.close();
            }
        }
    }

    /**
     * A client that goes on trickling its head after the 408 was sent still reads the 408: the
     * gateway drops what comes after its answer rather than reset the connection on it.
     */
    @Test
    void aHeadStillTricklingInAfterItsDeadlineStillReadsIts408() throws Exception {
        for (int port : new int[] {gateway.port(), gateway.gateway.adminPort()}) {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setSoTimeout(8_000);
                trickleUntilAnswered(socket);
                OutputStream out = socket.getOutputStream();
                for (int i = 0; i < 5; i++) {
                    out.write('x');
                    out.flush();
                    Thread.sleep(100);
                }
                String response = readResponse(socket.getInputStream());
                assertThat(RawHttp.status(response)).as(response).isEqualTo(408);
            }
        }
    }

    private static void assertTrickledHeadCutOff(int port) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(8_000);
            Duration answeredAfter = trickleUntilAnswered(socket);
            String response = readResponse(socket.getInputStream());
            assertThat(RawHttp.status(response)).as(response).isEqualTo(408);
            assertThat(answeredAfter).isLessThan(CUT_OFF_BY);
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    /**
     * Sends a request head one byte every 100 ms, never finishing it, until an answer is waiting;
     * returns how long that took. The idle timer alone would never fire.
     */
    private static Duration trickleUntilAnswered(Socket socket) throws IOException, InterruptedException {
        byte[] head = ("PUT /slow/loris HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nX-Slow: " + "s".repeat(200))
                .getBytes(StandardCharsets.US_ASCII);
        long started = System.nanoTime();
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        for (int i = 0; in.available() == 0; i++) {
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("no answer while trickling").isLessThan(IDLE_TIMEOUT.multipliedBy(2));
            out.write(head[i % head.length]);
            out.flush();
            Thread.sleep(100);
        }
        return Duration.ofNanos(System.nanoTime() - started);
    }

    private static String readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after: " + head);
            }
            head.append((char) b);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        return head + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
    }
}
