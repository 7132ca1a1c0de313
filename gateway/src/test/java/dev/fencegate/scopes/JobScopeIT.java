package dev.fencegate.scopes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.ScopeConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** One token fences a whole job: a paused worker cannot add an object the new holder has not written yet. */
@ExtendWith(NoNettyLeaks.class)
class JobScopeIT {

    @Test
    void oneTokenFencesEveryObjectUnderAJobAndWritesOutsideEveryScopeAreRefused() {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> {
            GatewayConfig base = GatewayHarness.config(upstream, TestPostgres.config(TestPostgres.newSchema("job_scope")),
                    Duration.ofSeconds(5));
            return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                    base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(), base.limits(),
                    base.safety(), base.ioThreads(), base.operations(), new ScopeConfig("/{bucket}/jobs/{job}/**", true));
        })) {
            assertThat(gateway.put("/data/jobs/42/part-0.parquet", 7, "A's part 0").statusCode()).isEqualTo(201);
            assertThat(gateway.put("/data/jobs/42/part-1.parquet", 8, "B's part 1").statusCode()).isEqualTo(201);

            // A paused with token 7 and wakes up: a new object it has never written is refused too.
            HttpResponse<String> late = gateway.put("/data/jobs/42/part-2.parquet", 7, "A's late part 2");
            assertThat(late.statusCode()).isEqualTo(412);
            assertThat(late.body()).contains("\"resource\":\"/data/jobs/42\"");
            assertThat(gateway.store.object("/data/jobs/42/part-2.parquet")).isEmpty();
            assertThat(gateway.fenceRow("/data/jobs/42")).isEqualTo(8);

            // Another job has a fence of its own.
            assertThat(gateway.put("/data/jobs/43/part-0.parquet", 1, "x").statusCode()).isEqualTo(201);

            HttpResponse<String> unscoped = gateway.put("/data/tmp/file", 100, "x");
            assertThat(unscoped.statusCode()).isEqualTo(403);
            assertThat(unscoped.body()).contains("outside-every-scope");
            assertThat(gateway.store.object("/data/tmp/file")).isEmpty();
        }
    }
}
