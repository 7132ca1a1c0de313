package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.GatewayHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** A running gateway's /metrics: its own counters, the fence database pool, the JVM and Netty's buffers. */
class MetricsEndpointIT {

    @Test
    void theAdminPortExposesGatewayPoolJvmAndNettyMetricsWithoutResourceNames() throws Exception {
        try (GatewayHarness harness = GatewayHarness.start("metrics_endpoint_it")) {
            harness.put("/metrics-bucket/object-4711", 5, "new");
            harness.put("/metrics-bucket/object-4711", 4, "stale");

            HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + harness.gateway.adminPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body())
                    .contains("fencegate_refusals_total{reason=\"stale-token\"} 1.0")
                    .contains("fencegate_fence_check_seconds_count{decision=\"admitted\"} 1\n")
                    .contains("fencegate_fence_check_seconds_count{decision=\"stale\"} 1\n")
                    .contains("fencegate_store_exchange_seconds_count{method=\"PUT\",outcome=\"forwarded\"} 1\n")
                    .contains("hikaricp_connections{pool=\"fencegate-fences\"}")
                    .contains("hikaricp_connections_acquire_seconds_count{pool=\"fencegate-fences\"}")
                    .contains("jvm_memory_used_bytes{area=\"heap\"")
                    .contains("jvm_gc_")
                    .contains("netty_allocator_memory_used{")
                    .contains("fencegate_netty_direct_memory_used_bytes")
                    .doesNotContain("object-4711").doesNotContain("metrics-bucket");
        }
    }
}
