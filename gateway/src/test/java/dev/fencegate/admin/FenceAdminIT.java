package dev.fencegate.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.GatewayHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** A fence raised on the admin port is the fence the data port enforces, under the same canonical key. */
class FenceAdminIT {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aFenceRaisedByAnOperatorRefusesLowerWritesOnTheDataPort() throws Exception {
        try (GatewayHarness harness = GatewayHarness.start("fence_admin_it")) {
            assertThat(harness.put("/bucket/report.csv", 3, "first").statusCode()).isEqualTo(201);

            HttpResponse<String> raised = admin(harness, "POST", "/fences/%2Fbucket%2Freport.csv?token=10");
            // Another spelling of the same object on the data port: %72 is 'r'.
            HttpResponse<String> late = harness.put("/bucket/%72eport.csv", 5, "late");
            HttpResponse<String> read = admin(harness, "GET", "/fences/%2Fbucket%2Freport.csv");

            assertThat(raised.statusCode()).as(raised.body()).isEqualTo(200);
            assertThat(late.statusCode()).as(late.body()).isEqualTo(412);
            assertThat(read.body()).isEqualTo("{\"resource\":\"/bucket/report.csv\",\"token\":10,\"holder\":null}");
            assertThat(harness.fenceRow("/bucket/report.csv")).isEqualTo(10);
            assertThat(harness.store.object("/bucket/report.csv")).hasValueSatisfying(
                    body -> assertThat(new String(body)).isEqualTo("first"));
        }
    }

    private HttpResponse<String> admin(GatewayHarness harness, String method, String target) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + harness.gateway.adminPort() + target))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
