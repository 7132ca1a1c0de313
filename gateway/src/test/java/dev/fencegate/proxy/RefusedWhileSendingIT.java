package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A writer refused while it is still sending its body (too large, or chunked, to be read and
 * dropped on a kept connection) reads its refusal: the gateway does not close on unread bytes,
 * which would have the kernel reset the connection and take the answer with it.
 */
@ExtendWith(NoNettyLeaks.class)
class RefusedWhileSendingIT {

    @Test
    void aWriterRefusedWhileStillSendingItsBodyReadsItsRefusal() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start("refused_while_sending")) {
            assertThat(gateway.put("/b/k", 10, "current").statusCode()).isBetween(200, 299);
            byte[] body = new byte[1024 * 1024];
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (int i = 0; i < 60; i++) {
                HttpRequest stale = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/b/k"))
                        .header("Fencing-Token", "3").header("Content-Type", "application/octet-stream")
                        .timeout(Duration.ofSeconds(10)).PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build();
                HttpResponse<String> refused = client.send(stale, HttpResponse.BodyHandlers.ofString());
                assertThat(refused.statusCode()).as("attempt %d", i).isEqualTo(412);
            }
            assertThat(new String(gateway.store.object("/b/k").orElseThrow())).isEqualTo("current");
        }
    }
}
