package dev.fencegate.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CountsTest {

    @Test
    void a_412_for_an_intended_stale_write_is_expected_and_not_an_error() {
        Tally tally = new Tally();
        tally.countAnswer(412, true);
        tally.countAnswer(201, false);

        Counts counts = tally.toCounts();
        assertThat(counts.expectedRefusals()).isEqualTo(1);
        assertThat(counts.clientError()).isEqualTo(1);
        assertThat(counts.errors()).isZero();
    }

    @Test
    void a_412_for_a_current_token_is_an_unexpected_refusal_and_an_error() {
        Tally tally = new Tally();
        tally.countAnswer(412, false);

        assertThat(tally.toCounts().unexpectedRefusals()).isEqualTo(1);
        assertThat(tally.toCounts().errors()).isEqualTo(1);
    }

    @Test
    void a_stale_write_that_got_through_is_counted_apart() {
        Tally tally = new Tally();
        tally.countAnswer(200, true);

        assertThat(tally.toCounts().staleAdmitted()).isEqualTo(1);
        assertThat(tally.toCounts().errors()).isZero();
    }

    @Test
    void a_404_answering_a_read_is_the_stores_answer_and_not_an_error() {
        Tally tally = new Tally();
        tally.countAnswer(404, false, true);
        tally.countAnswer(200, false, true);

        Counts counts = tally.toCounts();
        assertThat(counts.readsNotFound()).isEqualTo(1);
        assertThat(counts.clientError()).isEqualTo(1);
        assertThat(counts.errors()).isZero();
    }

    @Test
    void server_errors_failures_and_timeouts_are_errors() {
        Tally tally = new Tally();
        tally.countAnswer(503, false);
        tally.countAnswer(404, false);
        tally.transportErrors = 2;
        tally.timeouts = 3;

        Counts counts = tally.toCounts();
        assertThat(counts.serverError()).isEqualTo(1);
        assertThat(counts.errors()).isEqualTo(7);
    }
}
