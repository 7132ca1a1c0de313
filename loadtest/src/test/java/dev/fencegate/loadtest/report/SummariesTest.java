package dev.fencegate.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SummariesTest {

    @Test
    void cost_per_write_adds_up_all_runs_and_subtracts_the_background_for_the_net_figures() {
        List<GatewayCost> costs = List.of(
                new GatewayCost(10_000, 5, 400, 300, 10_100L, 20.0, 1_000L, 100_000, 180_000),
                new GatewayCost(30_000, 5, 1_200, 900, 30_100L, 20.0, 4_000L, 180_000, 190_000));
        Background background = new Background(7, 5.0, 10);

        TargetSummary.CostPerWrite cost = Summaries.costPerWrite(costs, background);

        assertThat(cost.gatewayCpuMicros()).isEqualTo(40.0);
        assertThat(cost.postgresCpuMicros()).isEqualTo(30.0);
        assertThat(cost.postgresCpuMicrosNet()).isEqualTo((1_200 - 100) * 1000 / 40_000.0);
        assertThat(cost.transactions()).isEqualTo(1.005);
        assertThat(cost.transactionsNet()).isEqualTo(1.0);
        assertThat(cost.durableCommits()).isEqualTo(0.125);
        assertThat(cost.maxGatewayRssMiB()).isEqualTo(185.5);
    }

    @Test
    void without_readable_commits_or_background_those_figures_are_missing_not_zero() {
        List<GatewayCost> costs = List.of(new GatewayCost(1_000, 5, 40, 30, null, null, null, 1, 1));

        TargetSummary.CostPerWrite cost = Summaries.costPerWrite(costs, null);

        assertThat(cost.transactions()).isNull();
        assertThat(cost.transactionsNet()).isNull();
        assertThat(cost.durableCommits()).isNull();
        assertThat(cost.postgresCpuMicrosNet()).isNull();
    }

    @Test
    void durable_commits_per_write_count_only_the_runs_whose_gateway_count_was_read() {
        List<GatewayCost> costs = List.of(
                new GatewayCost(1_000, 5, 40, 30, null, null, 300L, 1, 1),
                new GatewayCost(9_000, 5, 40, 30, null, null, null, 1, 1));

        assertThat(Summaries.costPerWrite(costs, null).durableCommits()).isEqualTo(0.3);
    }

    @Test
    void the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assertThat(Summaries.median(new double[] {1, 2, 10, 11})).isEqualTo(6.0);
        assertThat(Summaries.median(new double[] {1, 2, 10})).isEqualTo(2.0);
    }
}
