package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.StoreLink;
import dev.fencegate.testing.TestPostgres;
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
 * once (the kernel takes what it keeps unsent and what the link's window lets out), the store
 * does not answer within the upstream timeout, and the gateway holds the resource for one more
 * upstream timeout before a higher token goes ahead.
 * Were the connection closed with a FIN, the link would go on delivering the old body, and the
 * store would receive it whole and apply it after the newer write; it is reset instead.
 */
@ExtendWith(NoNettyLeaks.class)
class SlowLinkIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final int BODY_BYTES = 192 * 1024;
    private static final int LINK_BYTES_PER_SECOND = 32 * 1024;

    @Test
    void aBodyStillOnTheLinkAfterItsTimeoutNeverLandsAfterAHigherToken() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("slow_link"));
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             StoreLink link = StoreLink.slow(store.port(), LINK_BYTES_PER_SECOND);
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + link.port()),
                     database, Duration.ofSeconds(2)))) {
            HttpResponse<String> old = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/jobs/slow"))
                    .header("Fencing-Token", "5").PUT(HttpRequest.BodyPublishers.ofByteArray(new byte[BODY_BYTES])).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(old.statusCode()).as("the link delivers 192 KiB in 6 s, the upstream timeout is 2 s").isEqualTo(504);

            HttpResponse<String> newer = PausedGatewayIT.putUntilAnswered(gateway.port(), "/jobs/slow", 6);
            assertThat(newer.statusCode()).as(newer.body()).isIn(201, 204);

            // Wait until the link has delivered what the gateway handed its socket before the timeout.
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(link::idle);
            Thread.sleep(500);
            List<String> tokens = store.appliedTo("/jobs/slow").stream().map(AppliedWrite::fencingToken).toList();
            assertThat(tokens).as("tokens in the store's apply order").isIn(List.of("6"), List.of("5", "6"));
        }
    }
}
