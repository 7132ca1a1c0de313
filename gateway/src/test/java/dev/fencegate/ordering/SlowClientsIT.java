package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Slow and stalled clients hold no fence-store resources and are cut off when they go quiet. */
@ExtendWith(NoNettyLeaks.class)
class SlowClientsIT {

    private static final int SLOW_CLIENTS = 200;

    @Test
    void twoHundredClientsSendingOneBytePerSecondDoNotStopWritesToOtherResources() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, TestPostgres.config(TestPostgres.newSchema("slow_clients")), Duration.ofSeconds(30),
                Duration.ofSeconds(10), SafetyConfig.defaults()))) {
            List<Socket> slow = new ArrayList<>();
            try {
                for (int i = 0; i < SLOW_CLIENTS; i++) {
                    Socket socket = new Socket("127.0.0.1", gateway.port());
                    socket.getOutputStream().write(("PUT /slow/" + (i % 5) + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\n"
                            + "Content-Length: 100\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    slow.add(socket);
                }
                for (int second = 0; second < 3; second++) {
                    for (Socket socket : slow) {
                        OutputStream out = socket.getOutputStream();
                        out.write('x');
                        out.flush();
                    }
                    for (int i = 0; i < 5; i++) {
                        long started = System.nanoTime();
                        int status = gateway.put("/fast/" + second + "-" + i, 1, "quick").statusCode();
                        assertThat(status).isEqualTo(201);
                        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
                    }
                    Thread.sleep(1_000);
                }
            } finally {
                for (Socket socket : slow) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void aClientSilentMidHeadersOrMidBodyGets408AndTheStoreSeesNoCompleteWrite() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, TestPostgres.config(TestPostgres.newSchema("idle_clients")), Duration.ofSeconds(30),
                Duration.ofMillis(700), SafetyConfig.defaults()))) {
            try (RawHttp body = gateway.raw()) {
                body.send("PUT /idle/body HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nContent-Length: 10\r\n\r\nabc");
                String response = body.readResponse();
                assertThat(RawHttp.status(response)).isEqualTo(408);
                assertThat(body.closedByPeer()).isTrue();
            }
            try (RawHttp head = gateway.raw()) {
                head.send("PUT /idle/head HTTP/1.1\r\nHost: x\r\nFencing-To");
                String response = head.readResponse();
                assertThat(RawHttp.status(response)).isEqualTo(408);
                assertThat(head.closedByPeer()).isTrue();
            }
            assertThat(gateway.store.applied()).isEmpty();
        }
    }

    @Test
    void aKeptConnectionQuietBetweenRequestsIsClosedWithNoAnswerAClientCouldTakeForItsNext() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, TestPostgres.config(TestPostgres.newSchema("quiet_clients")), Duration.ofSeconds(30),
                Duration.ofMillis(700), SafetyConfig.defaults()));
             RawHttp kept = gateway.raw()) {
            kept.send("PUT /quiet/a HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nContent-Length: 2\r\n\r\nok");
            assertThat(RawHttp.status(kept.readResponse())).isEqualTo(201);

            kept.timeout(10_000);
            // Past the idle timeout: the connection ends, and not with a 408 (read() gives -1, not a byte).
            assertThat(kept.closedByPeer()).isTrue();
        }
    }
}
