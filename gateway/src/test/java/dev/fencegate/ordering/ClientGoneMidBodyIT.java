package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A worker that goes away in the middle of its body (it crashed, or its lease guard interrupted the
 * upload) leaves a request the store never got to the end of, so never applies: the next holder's
 * write goes ahead at once, rather than waiting out {@code --upstream-timeout} as after a write
 * whose outcome is unknown.
 */
@ExtendWith(NoNettyLeaks.class)
class ClientGoneMidBodyIT {

    @Test
    void aWorkerGoneMidBodyDoesNotHoldTheNextHolderBack() throws Exception {
        String path = "/jobs/gone";
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(),
                TestPostgres.config(TestPostgres.newSchema("client_gone")), Duration.ofSeconds(30))) {
            try (RawHttp worker = gateway.raw()) {
                worker.send("PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: 5\r\nContent-Length: 100\r\n\r\n"
                        + "5".repeat(40));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> gateway.fenceRow(path) == 5);
                Thread.sleep(300); // the head and the first part of the body reach the store
            }

            long start = System.nanoTime();
            HttpResponse<String> next = gateway.put(path, 6, "token 6");
            Duration waited = Duration.ofNanos(System.nanoTime() - start);

            assertThat(next.statusCode()).as(next.body()).isIn(200, 201, 204);
            assertThat(waited).as("the next holder's wait").isLessThan(Duration.ofSeconds(10));
            List<String> tokens = gateway.store.appliedTo(path).stream().map(AppliedWrite::fencingToken).toList();
            assertThat(tokens).containsExactly("6");
        }
    }
}
