package dev.fencegate.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.ScopeConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An operator's raise names an object; with job scopes, writes to that object are checked against
 * its job's fence. A raise of the object's own key would answer 200 and fence nothing.
 */
class AdminRaiseUnderScopesIT {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aRaiseOfAnObjectUnderAJobScopeIsRefusedNamingItsJobAndARaiseOfTheJobFencesItsWrites() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> {
            GatewayConfig base = GatewayHarness.config(upstream, TestPostgres.config(TestPostgres.newSchema("admin_scopes")),
                    Duration.ofSeconds(5));
            return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                    base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(), base.limits(),
                    base.safety(), base.ioThreads(), base.operations(), new ScopeConfig("/{bucket}/jobs/{job}/**", true));
        })) {
            assertThat(gateway.put("/data/jobs/42/part-0", 5, "first").statusCode()).isEqualTo(201);

            HttpResponse<String> object = admin(gateway, "POST", "/fences/%2Fdata%2Fjobs%2F42%2Fpart-0?token=100");
            assertThat(object.statusCode()).as(object.body()).isEqualTo(400);
            assertThat(object.body()).contains("checked against the fence of /data/jobs/42");
            assertThat(admin(gateway, "GET", "/fences/%2Fdata%2Fjobs%2F42%2Fpart-0").statusCode()).isEqualTo(400);

            HttpResponse<String> job = admin(gateway, "POST", "/fences/%2Fdata%2Fjobs%2F42?token=100");
            assertThat(job.statusCode()).as(job.body()).isEqualTo(200);
            assertThat(gateway.put("/data/jobs/42/part-0", 5, "stale").statusCode()).isEqualTo(412);
            assertThat(gateway.put("/data/jobs/42/part-1", 5, "stale").statusCode()).isEqualTo(412);
            assertThat(gateway.store.object("/data/jobs/42/part-0").map(b -> new String(b, StandardCharsets.UTF_8))).hasValue("first");
            assertThat(gateway.store.object("/data/jobs/42/part-1")).isEmpty();
        }
    }

    private HttpResponse<String> admin(GatewayHarness harness, String method, String target) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + harness.gateway.adminPort() + target))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
