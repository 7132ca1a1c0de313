package dev.fencegate.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * One connection, 1,000 requests/s, a target that answers in 0.1 ms except one request that
 * stalls for a full second. A closed-loop tool sees a single slow answer; the ~1,000 requests
 * that were due during the stall waited too, and an open-loop measurement must say so.
 */
class CoordinatedOmissionTest {
    private static final long MS = 1_000_000;
    private static final long SECOND = 1_000 * MS;
    private static final int STALLED_REQUEST = 500;

    @Test
    void latency_counts_from_the_intended_time_so_a_stall_shows_in_every_request_it_delayed() {
        SimulatedLoop loop = new SimulatedLoop();
        Shard shard = new Shard(loop);
        ScriptedLane lane = new ScriptedLane(shard, loop, n -> n == STALLED_REQUEST ? SECOND : MS / 10);
        Recorder recorder = new Recorder(0, 2 * SECOND);
        shard.add(lane);
        shard.laneReady(lane);
        shard.start(new FixedRatePacing(OpenLoopSchedule.single(0, 1_000), 2 * SECOND), recorder);

        loop.runUntil(3 * SECOND);
        shard.stop();
        Histogram corrected = recorder.latencyMicros();

        assertThat(corrected.getTotalCount()).isEqualTo(2_000);
        assertThat(corrected.getMaxValue() / 1000.0).isCloseTo(1_000, within(5.0));
        // Requests due from 0.5 s to about 1.61 s queued behind the stall: ages from 1 s down to 0.
        long delayedPastTenMillis = corrected.getTotalCount() - corrected.getCountBetweenValues(0, 10_000);
        assertThat(delayedPastTenMillis).isBetween(1_050L, 1_120L);
        assertThat(corrected.getValueAtPercentile(90) / 1000.0).isBetween(700.0, 900.0);

        // The same run measured from the actual send: the stall is one sample among 2,000.
        assertThat(lane.fromSendMicros.getValueAtPercentile(99.9) / 1000.0).isLessThan(1.0);
    }

    @Test
    void requests_left_waiting_at_the_end_are_counted_unfinished_at_their_age_so_far() {
        SimulatedLoop loop = new SimulatedLoop();
        Shard shard = new Shard(loop);
        ScriptedLane lane = new ScriptedLane(shard, loop, n -> 10 * SECOND);
        Recorder recorder = new Recorder(0, SECOND);
        shard.add(lane);
        shard.laneReady(lane);
        shard.start(new FixedRatePacing(OpenLoopSchedule.single(0, 1_000), SECOND), recorder);

        loop.runUntil(2 * SECOND);
        shard.stop();

        assertThat(recorder.tally().toCounts().unfinished()).isEqualTo(1_000);
        assertThat(recorder.tally().toCounts().errors()).isEqualTo(1_000);
        assertThat(recorder.latencyMicros().getMinValue()).isGreaterThanOrEqualTo(1_000_000);
        assertThat(recorder.latencyMicros().getMaxValue()).isGreaterThanOrEqualTo(1_999_000);
    }

    @Test
    void warm_up_answers_are_counted_apart_and_not_measured() {
        SimulatedLoop loop = new SimulatedLoop();
        Shard shard = new Shard(loop);
        ScriptedLane lane = new ScriptedLane(shard, loop, n -> MS / 10);
        Recorder recorder = new Recorder(SECOND / 2, SECOND);
        shard.add(lane);
        shard.laneReady(lane);
        shard.start(new FixedRatePacing(OpenLoopSchedule.single(0, 100), SECOND), recorder);

        loop.runUntil(2 * SECOND);

        Counts counts = shard.stop().tally().toCounts();
        assertThat(counts.warmupAnswered()).isEqualTo(50);
        assertThat(counts.answered()).isEqualTo(50);
        assertThat(recorder.latencyMicros().getTotalCount()).isEqualTo(50);
    }
}
