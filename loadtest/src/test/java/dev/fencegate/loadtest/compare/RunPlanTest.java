package dev.fencegate.loadtest.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunPlanTest {
    private static final Target DIRECT = target("discard-direct", "discard", Route.DIRECT);
    private static final Target GATEWAY = target("discard-gateway", "discard", Route.GATEWAY);
    private static final Target WEBDAV = target("webdav-direct", "webdav", Route.DIRECT);

    @Test
    void saturation_runs_alternate_targets_and_repeat_the_cycle_each_round() {
        List<RunPlan.Step> steps = RunPlan.saturation(List.of(DIRECT, GATEWAY), 3);

        assertThat(steps).extracting(RunPlan.Step::target)
                .containsExactly(DIRECT, GATEWAY, DIRECT, GATEWAY, DIRECT, GATEWAY);
        assertThat(steps).extracting(RunPlan.Step::round).containsExactly(1, 1, 2, 2, 3, 3);
        assertThat(steps).allMatch(step -> step.offeredRate() == null);
    }

    @Test
    void fixed_rate_runs_visit_every_target_at_one_rate_before_the_next_and_alternate_direction_by_round() {
        Map<String, List<Double>> rates = Map.of("discard", List.of(100.0, 200.0), "webdav", List.of(10.0, 20.0));

        List<RunPlan.Step> steps = RunPlan.fixedRates(List.of(DIRECT, GATEWAY, WEBDAV), 2, rates);

        assertThat(steps).hasSize(12);
        assertThat(steps.subList(0, 6)).extracting(RunPlan.Step::offeredRate)
                .containsExactly(100.0, 100.0, 10.0, 200.0, 200.0, 20.0);
        assertThat(steps.subList(6, 12)).extracting(RunPlan.Step::round).containsOnly(2);
        assertThat(steps.subList(6, 12)).extracting(RunPlan.Step::offeredRate)
                .containsExactly(200.0, 200.0, 20.0, 100.0, 100.0, 10.0);
        for (int i = 1; i < steps.size(); i++) {
            assertThat(steps.get(i).target()).isNotEqualTo(steps.get(i - 1).target());
        }
    }

    @Test
    void offered_rates_are_fractions_of_the_slowest_target_of_each_store_by_default() {
        Map<String, Double> saturation = Map.of("discard-direct", 90_000.0, "discard-gateway", 12_000.0,
                "webdav-direct", 0.0);
        List<Target> targets = List.of(DIRECT, GATEWAY, WEBDAV);

        Map<String, List<Double>> slowest = OfferedRates.of(targets, saturation, RateBasis.SLOWEST, List.of(0.75, 0.25));
        Map<String, List<Double>> direct = OfferedRates.of(targets, saturation, RateBasis.DIRECT, List.of(0.5));

        assertThat(slowest.get("discard")).containsExactly(3_000.0, 9_000.0);
        assertThat(slowest.get("webdav")).isEmpty();
        assertThat(direct.get("discard")).containsExactly(45_000.0);
    }

    static Target target(String id, String store, Route route) {
        return new Target(id, store, route, URI.create("http://127.0.0.1:1"), Optional.empty());
    }
}
