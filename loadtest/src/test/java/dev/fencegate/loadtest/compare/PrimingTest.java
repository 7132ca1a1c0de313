package dev.fencegate.loadtest.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PrimingTest {

    @Test
    void a_gateway_is_primed_until_its_jit_takes_at_most_a_tenth_of_its_cpu_in_two_runs_in_a_row() {
        Priming priming = new Priming();

        assertThat(priming.another(1_000, 450)).isTrue();
        assertThat(priming.another(1_000, 30)).isTrue();
        assertThat(priming.another(1_000, 120)).isTrue();
        assertThat(priming.another(1_000, 100)).isTrue();
        assertThat(priming.another(1_000, 40)).isFalse();

        assertThat(priming.runs()).isEqualTo(5);
        assertThat(priming.settled()).isTrue();
        assertThat(priming.describe("do-nothing gateway", Duration.ofSeconds(8)))
                .isEqualTo("do-nothing gateway primed 5 runs of 8 s, until its JIT compiler threads took at most 10% of"
                        + " its CPU in 2 runs in a row (4% in the last).");
    }

    @Test
    void priming_stops_at_its_cap_and_says_the_jit_had_not_settled() {
        Priming priming = new Priming();
        int runs = 0;
        boolean again;
        do {
            again = priming.another(1_000, 300);
            runs++;
        } while (again);

        assertThat(runs).isEqualTo(Priming.MAX_RUNS);
        assertThat(priming.settled()).isFalse();
        assertThat(priming.describe("WebDAV gateway", Duration.ofSeconds(4)))
                .isEqualTo("WebDAV gateway primed 10 runs of 4 s, the most; its JIT compiler threads still took 30% of"
                        + " its CPU in the last.");
    }

    @Test
    void a_gateway_whose_cpu_cannot_be_read_is_primed_once() {
        Priming priming = new Priming();

        assertThat(priming.another(0, 0)).isFalse();
        assertThat(priming.describe("do-nothing gateway", Duration.ofSeconds(8)))
                .isEqualTo("do-nothing gateway primed 1 run of 8 s; its CPU could not be read, so its JIT was not watched.");
    }
}
