package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TcpRelay;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An instance admits a write on its head, then loses PostgreSQL (its renewals fail), its
 * registration expires, another instance raises and lands a higher token, and the worker's body
 * arrives later, well within the client idle timeout: the old write is not sent, because waiting
 * for the body counts against its window. Rows here last 5 s (2 s upstream timeout plus 3 s).
 */
@ExtendWith(NoNettyLeaks.class)
class CutOffGatewayIT {

    private static final String BODY = "token 5 late";

    @Test
    void aWriteWhoseBodyArrivesAfterItsRegistrationLapsedIsNotSent() throws Exception {
        DatabaseConfig direct = TestPostgres.config(TestPostgres.newSchema("cut_off"));
        String path = "/jobs/cut";
        try (TcpRelay relay = TcpRelay.toJdbc(direct.url());
             MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback())) {
            URI upstream = URI.create("http://127.0.0.1:" + store.port());
            DatabaseConfig relayed = new DatabaseConfig(relay.jdbcUrl(direct.url()),
                    direct.schema(), direct.user(), direct.password(), direct.poolSize(), direct.checkTimeout());
            try (Gateway cutOff = Gateway.start(GatewayHarness.config(upstream, relayed, Duration.ofSeconds(2), Duration.ofSeconds(60),
                         SafetyConfig.defaults()));
                 Gateway other = Gateway.start(GatewayHarness.config(upstream, direct, Duration.ofSeconds(2)));
                 RawHttp worker = RawHttp.connect(cutOff.port())) {
                worker.timeout(30_000);
                worker.send("PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: 5\r\nContent-Length: "
                        + BODY.length() + "\r\n\r\n");
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> PausedGatewayIT.fence(direct, path) == 5);
                Thread.sleep(300); // the decision reaches the event loop

                relay.cut();
                HttpResponse<String> newer = PausedGatewayIT.putUntilAnswered(other.port(), path, 6);
                assertThat(newer.statusCode()).as(newer.body()).isIn(201, 204);

                worker.send(BODY);
                String answer = worker.readResponse();
                assertThat(RawHttp.status(answer)).as(answer).isEqualTo(503);
                assertThat(answer).contains("urn:fencegate:problem:admission-expired");
            }
            Thread.sleep(500);
            List<String> tokens = store.appliedTo(path).stream().map(AppliedWrite::fencingToken).toList();
            assertThat(tokens).as("the late write never lands after the new one").containsExactly("6");
        }
    }
}
