package dev.fencegate.loadtest.compare;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FenceCommitCounterTest {

    @Test
    void the_count_is_read_from_the_gateways_prometheus_text_and_not_from_a_metric_that_shares_its_prefix() {
        String scrape = """
                # HELP fencegate_fence_commits_total_extra not this one
                fencegate_fence_commits_total_extra 7.0
                # HELP fencegate_fence_commits_total Commits made by fence checks: a batch's registrations and raises share one
                # TYPE fencegate_fence_commits_total counter
                fencegate_fence_commits_total 12345.0
                """;

        assertThat(FenceCommitCounter.parse(scrape)).hasValue(12_345);
    }

    @Test
    void labels_and_a_timestamp_do_not_change_the_count() {
        assertThat(FenceCommitCounter.parse("fencegate_fence_commits_total{instance=\"a}b\"} 42.0 1700000000000\n"))
                .hasValue(42);
    }

    @Test
    void a_scrape_without_the_count_gives_none_rather_than_zero() {
        assertThat(FenceCommitCounter.parse("# TYPE fencegate_fence_commits_total counter\nother_total 3.0\n")).isEmpty();
    }
}
