package dev.fencegate.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class OpenLoopScheduleTest {

    @Test
    void intended_times_are_evenly_spaced_from_the_start() {
        OpenLoopSchedule schedule = OpenLoopSchedule.single(5_000, 4);

        assertThat(LongStream.range(0, 4).map(schedule::intendedNanos).toArray())
                .containsExactly(5_000, 250_005_000, 500_005_000, 750_005_000);
    }

    @Test
    void intended_times_do_not_drift_over_a_long_run() {
        OpenLoopSchedule schedule = OpenLoopSchedule.single(0, 3);

        // One hour at 3/s: adding up a whole-nanosecond step of 333,333,333 would be 3.6 µs early.
        assertThat(schedule.intendedNanos(3 * 3600)).isEqualTo(3_600_000_000_000L);
        assertThat(schedule.intendedNanos(1)).isEqualTo(333_333_333L);
    }

    @Test
    void shards_together_fill_the_single_schedule() {
        OpenLoopSchedule whole = OpenLoopSchedule.single(1_000, 7_000);
        List<Long> merged = new ArrayList<>();
        for (int shard = 0; shard < 3; shard++) {
            OpenLoopSchedule part = new OpenLoopSchedule(1_000, 7_000, shard, 3);
            LongStream.range(0, 100).map(part::intendedNanos).forEach(merged::add);
        }
        merged.sort(Long::compare);

        assertThat(merged).containsExactlyElementsOf(
                LongStream.range(0, 300).map(whole::intendedNanos).boxed().toList());
    }

    @Test
    void a_rate_of_zero_is_refused() {
        assertThatThrownBy(() -> OpenLoopSchedule.single(0, 0))
                .hasMessageContaining("rate: 0.0 (expected: > 0)");
    }

    @Test
    void fixed_rate_pacing_releases_requests_at_their_intended_times_and_never_at_the_end() {
        FixedRatePacing pacing = new FixedRatePacing(OpenLoopSchedule.single(0, 1_000), 3_000_000);

        assertThat(pacing.hasDue(0)).isTrue();
        assertThat(pacing.take(0)).isEqualTo(0);
        assertThat(pacing.hasDue(999_999)).isFalse();
        assertThat(pacing.nextWakeNanos()).isEqualTo(1_000_000);
        assertThat(pacing.take(2_500_000)).isEqualTo(1_000_000);
        assertThat(pacing.overdue(2_500_000)).containsExactly(2_000_000);
        assertThat(pacing.take(9_000_000)).isEqualTo(2_000_000);
        assertThat(pacing.hasDue(9_000_000)).isFalse();
        assertThat(pacing.nextWakeNanos()).isEqualTo(Pacing.NEVER);
    }

    @Test
    void an_idle_lane_sends_each_request_exactly_at_its_intended_time() {
        SimulatedLoop loop = new SimulatedLoop();
        Shard shard = new Shard(loop);
        ScriptedLane lane = new ScriptedLane(shard, loop, request -> 100_000);
        shard.add(lane);
        shard.laneReady(lane);
        shard.start(new FixedRatePacing(OpenLoopSchedule.single(1_000_000, 500), 1_000_000_000L + 1_000_000),
                new Recorder(1_000_000, 1_001_000_000));

        loop.runUntil(2_000_000_000L);

        assertThat(lane.intendedAndSent).hasSize(500);
        assertThat(lane.intendedAndSent).allSatisfy(pair -> assertThat(pair[1]).isEqualTo(pair[0]));
        assertThat(lane.intendedAndSent.get(1)[0]).isEqualTo(3_000_000);
    }
}
