package dev.fencegate.loadtest.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.loadtest.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetCommandsTest {

    @Test
    void the_job_objects_workload_starts_the_gateway_with_one_job_scope_per_resource_and_no_other_workload_does() {
        List<String> jobs = new TargetCommands(settings(Workload.JOB_OBJECTS, false)).gateway(1, 2, 3);
        int scopes = jobs.indexOf("--scopes");

        assertThat(scopes).isPositive();
        assertThat(jobs.get(scopes + 1)).isEqualTo("/loadtest/{target}/{job}/**");
        // A fence database holds fences of one naming: the scoped gateway keeps its own.
        assertThat(jobs.get(jobs.indexOf("--db-schema") + 1)).isEqualTo("fencegate_job_scopes");
        for (Workload other : List.of(Workload.SAME_TOKEN, Workload.NEW_OBJECTS, Workload.RAISES, Workload.MIXED)) {
            assertThat(new TargetCommands(settings(other, false)).gateway(1, 2, 3)).as(other.cliName())
                    .doesNotContain("--scopes").doesNotContain("--db-schema");
        }
        assertThat(new TargetCommands(settings(Workload.JOB_OBJECTS, true)).gateway(1, 2, 3)).as("reads")
                .doesNotContain("--scopes");
    }

    @Test
    void the_job_scope_names_a_targets_prefix_and_a_resource_below_it() {
        Target target = new Target("discard-gateway", "discard", Route.GATEWAY, java.net.URI.create("http://127.0.0.1:1"),
                java.util.Optional.empty());
        String[] scope = Target.JOB_SCOPES.split("/");
        String[] object = (target.pathPrefix() + "/r17/new-x-1").split("/");

        assertThat(scope).hasSize(5);
        assertThat(object).hasSize(5);
        assertThat(object[1]).isEqualTo(scope[1]);
        assertThat(scope[2]).startsWith("{");
        assertThat(scope[3]).startsWith("{");
        assertThat(scope[4]).isEqualTo("**");
    }

    private static CompareSettings settings(Workload workload, boolean reads) {
        return new CompareSettings(Path.of("gateway.jar"), Path.of("store.jar"), Path.of("out"), 1,
                Phases.ofSeconds(1, 2), Phases.ofSeconds(1, 2), Duration.ofSeconds(1), List.of(0.5), RateBasis.SLOWEST,
                32, 4096, 1024, 0, "jdbc:postgresql://127.0.0.1:5432/test", "postgres", "", false, false, "nginx",
                "auto", "256m", reads, workload);
    }
}
