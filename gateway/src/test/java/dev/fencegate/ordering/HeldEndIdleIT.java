package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.SafetyConfig;
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
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A client that sent its whole body at once, in front of a slow store: while the gateway holds
 * the request's end back for the store's socket to drain, it waits on the store, not the client,
 * so --client-idle-timeout must not cut the write off with 408 "request body stalled".
 */
@ExtendWith(NoNettyLeaks.class)
class HeldEndIdleIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void aWriteWhoseEndIsHeldForTheStoreIsNotCutAsAStalledClient() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("held_end_idle"));
        byte[] body = new byte[512 * 1024];
        new Random(7).nextBytes(body);
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             StoreLink link = StoreLink.slow(store.port(), 64 * 1024);
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + link.port()),
                     database, Duration.ofSeconds(60), Duration.ofSeconds(1), SafetyConfig.defaults()))) {
            HttpResponse<String> put = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/jobs/held"))
                    .header("Fencing-Token", "5").PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).as(put.body()).isIn(200, 201, 204);
            assertThat(store.object("/jobs/held")).hasValueSatisfying(stored -> assertThat(stored).isEqualTo(body));
        }
    }
}
