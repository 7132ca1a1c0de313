package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A write refused on its head, on a connection kept for the next request, whose body then stalls:
 * its one answer was the refusal. The idle timeout closes the connection without a second answer,
 * which a client reusing the connection would take for the answer to its next request.
 */
@ExtendWith(NoNettyLeaks.class)
class RefusedWriteStallIT {

    @Test
    void aRefusedWriteWhoseBodyStallsGetsOneAnswerAndTheConnectionCloses() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("refused_write_stall"));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()),
                     database, Duration.ofSeconds(10), Duration.ofSeconds(1), SafetyConfig.defaults()))) {
            try (RawHttp holder = RawHttp.connect(gateway.port())) {
                String written = holder.send("PUT /b/obj HTTP/1.1\r\nHost: x\r\nFencing-Token: 10\r\nContent-Length: 7\r\n"
                        + "Connection: close\r\n\r\ncurrent").readResponse();
                assertThat(RawHttp.status(written)).as(written).isBetween(200, 299);
            }
            try (RawHttp stale = RawHttp.connect(gateway.port())) {
                stale.timeout(10_000);
                String refused = stale.send("PUT /b/obj HTTP/1.1\r\nHost: x\r\nFencing-Token: 5\r\nContent-Length: 100\r\n\r\n"
                        + "0123456789").readResponse();
                assertThat(RawHttp.status(refused)).as(refused).isEqualTo(412);
                assertThat(stale.readToClose()).as("nothing after the one answer, and the connection closes").isEmpty();
            }
            assertThat(store.object("/b/obj")).hasValueSatisfying(stored -> assertThat(new String(stored)).isEqualTo("current"));
        }
    }
}
