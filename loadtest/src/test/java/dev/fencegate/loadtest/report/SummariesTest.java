package dev.fencegate.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SummariesTest {

    @Test
    void cost_per_write_adds_up_all_runs_and_subtracts_the_background_for_the_net_figures() {
        List<GatewayCost> costs = List.of(
                new GatewayCost(10_000, 5, 400, 300, 10_100L, 20.0, 100_000, 180_000),
                new GatewayCost(30_000, 5, 1_200, 900, 30_100L, 20.0, 180_000, 190_000));
        Background background = new Background(7, 5.0, 10);

        TargetSummary.CostPerWrite cost = Summaries.costPerWrite(costs, background);

        assertThat(cost.gatewayCpuMicros()).isEqualTo(40.0);
        assertThat(cost.postgresCpuMicros()).isEqualTo(30.0);
        assertThat(cost.postgresCpuMicrosNet()).isEqualTo((1_200 - 100) * 1000 / 40_000.0);
        assertThat(cost.commits()).isEqualTo(1.005);
        assertThat(cost.commitsNet()).isEqualTo(1.0);
        assertThat(cost.maxGatewayRssMiB()).isEqualTo(185.5);
    }

    @Test
    void without_readable_commits_or_background_those_figures_are_missing_not_zero() {
        List<GatewayCost> costs = List.of(new GatewayCost(1_000, 5, 40, 30, null, null, 1, 1));

        TargetSummary.CostPerWrite cost = Summaries.costPerWrite(costs, null);

        assertThat(cost.commits()).isNull();
        assertThat(cost.commitsNet()).isNull();
        assertThat(cost.postgresCpuMicrosNet()).isNull();
    }

    @Test
    void the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assertThat(Summaries.median(new double[] {1, 2, 10, 11})).isEqualTo(6.0);
        assertThat(Summaries.median(new double[] {1, 2, 10})).isEqualTo(2.0);
    }
}
