package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import static org.awaitility.Awaitility.await;

import dev.fencegate.testing.FenceSchema;
import dev.fencegate.testing.GatewayHarness;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
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
                    .contains("fencegate_fence_database_clock_steps_total 0.0")
                    .doesNotContain("object-4711").doesNotContain("metrics-bucket");
        }
    }

    @Test
    void aLostListenerIsCountedAndHeldFencesShowOnAgainWhenItHearsAgain() throws Exception {
        try (GatewayHarness harness = GatewayHarness.start("metrics_listener_it")) {
            int admin = harness.gateway.adminPort();
            await().atMost(Duration.ofSeconds(10)).until(() -> metric(admin, "fencegate_fence_listener_fresh") == 1);
            assertThat(metric(admin, "fencegate_fence_listener_losses_total")).isZero();

            assertThat(new FenceSchema(harness.schema).terminateGatewayBackends()).isPositive();

            await().atMost(Duration.ofSeconds(10)).until(() -> metric(admin, "fencegate_fence_listener_losses_total") >= 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> metric(admin, "fencegate_fence_listener_fresh") == 1);
        }
    }

    @Test
    void everyGatewayMetricHasAHelpTextAndARowInTheReadme() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String table = readme.substring(readme.indexOf("**Metrics.**"), readme.indexOf("**Access log.**"));
        try (GatewayHarness harness = GatewayHarness.start("metrics_help_it")) {
            String body = scrape(harness.gateway.adminPort());

            List<String> helps = body.lines().filter(line -> line.startsWith("# HELP fencegate_")).toList();
            assertThat(helps).hasSizeGreaterThan(10);
            List<String> withoutHelp = new ArrayList<>();
            List<String> withoutRow = new ArrayList<>();
            for (String help : helps) {
                String[] parts = help.split(" ", 4);
                String name = parts[2];
                if (parts.length < 4 || parts[3].isBlank()) {
                    withoutHelp.add(name);
                }
                // A histogram's _max gauge is documented with the histogram.
                String base = name.endsWith("_max") && body.contains("# HELP " + name.substring(0, name.length() - 4) + " ")
                        ? name.substring(0, name.length() - 4) : name;
                if (!Pattern.compile("`" + base + "[`{]").matcher(table).find()) {
                    withoutRow.add(name);
                }
            }
            assertThat(withoutHelp).as("metrics with an empty HELP").isEmpty();
            assertThat(withoutRow).as("metrics without a row in the README's metrics table").isEmpty();
        }
    }

    private static String scrape(int adminPort) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + adminPort + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The value of an unlabelled metric; NaN when the gateway does not export it. */
    private static double metric(int adminPort, String name) throws IOException, InterruptedException {
        return scrape(adminPort).lines().filter(line -> line.startsWith(name + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(name.length() + 1))).findFirst().orElse(Double.NaN);
    }
}
