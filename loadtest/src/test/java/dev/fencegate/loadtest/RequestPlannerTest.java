package dev.fencegate.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class RequestPlannerTest {
    private static final long BASE = 1_000;

    @Test
    void steady_writes_carry_each_resource_current_token() {
        TokenBook book = new TokenBook("/loadtest", 8, BASE);
        RequestPlanner planner = planner(book, TokenPattern.STEADY, 0);

        List<PlannedRequest> planned = plan(planner, 100);

        assertThat(planned).extracting(PlannedRequest::token).containsOnly(BASE);
        assertThat(planned).noneMatch(PlannedRequest::expectStale);
        assertThat(planned).extracting(PlannedRequest::path).containsAll(List.of("/loadtest/r0", "/loadtest/r7"));
    }

    @Test
    void stale_share_is_respected_and_stale_tokens_sit_one_below_the_current_token() {
        TokenBook book = new TokenBook("/p", 16, BASE);
        RequestPlanner planner = planner(book, TokenPattern.STALE, 0.2);

        List<PlannedRequest> planned = plan(planner, 50_000);

        List<PlannedRequest> stale = planned.stream().filter(PlannedRequest::expectStale).toList();
        assertThat(stale.size() / 50_000.0).isCloseTo(0.2, within(0.01));
        assertThat(stale).extracting(PlannedRequest::token).containsOnly(BASE - 1);
        assertThat(planned.stream().filter(p -> !p.expectStale())).extracting(PlannedRequest::token).containsOnly(BASE);
    }

    @Test
    void a_resource_first_write_is_never_stale_because_an_unfenced_resource_admits_any_token() {
        TokenBook book = new TokenBook("/p", 64, BASE);
        RequestPlanner planner = planner(book, TokenPattern.STALE, 1.0);

        List<PlannedRequest> planned = plan(planner, 128);

        assertThat(planned.subList(0, 64)).noneMatch(PlannedRequest::expectStale);
        assertThat(planned.subList(64, 128)).allMatch(PlannedRequest::expectStale);
    }

    @Test
    void bumps_raise_a_share_of_writes_by_exactly_one() {
        TokenBook book = new TokenBook("/p", 1, BASE);
        RequestPlanner planner = planner(book, TokenPattern.BUMPS, 0.1);

        List<Long> tokens = plan(planner, 20_000).stream().map(PlannedRequest::token).toList();

        long bumps = IntStream.range(1, tokens.size()).filter(i -> tokens.get(i) > tokens.get(i - 1)).count();
        assertThat(bumps / 20_000.0).isCloseTo(0.1, within(0.01));
        assertThat(IntStream.range(1, tokens.size()).map(i -> (int) (tokens.get(i) - tokens.get(i - 1))))
                .containsOnly(0, 1);
        assertThat(book.current(0)).isEqualTo(tokens.get(tokens.size() - 1));
    }

    @Test
    void each_resource_has_one_writing_connection_so_bumped_tokens_stay_in_order() {
        TokenBook book = new TokenBook("/p", 100, BASE);
        Map<String, Integer> writerOf = new HashMap<>();
        for (int connection = 0; connection < 32; connection++) {
            RequestPlanner planner = new RequestPlanner(book, TokenPattern.BUMPS, 0.1, false,
                    new SplittableRandom(connection), connection, 32);
            for (PlannedRequest request : plan(planner, 50)) {
                assertThat(writerOf.putIfAbsent(request.path(), connection)).isIn(null, connection);
            }
        }
        assertThat(writerOf).hasSize(100);
    }

    @Test
    void hot_sends_every_connection_to_one_resource() {
        TokenBook book = new TokenBook("/p", 100, BASE);
        Set<String> paths = new HashSet<>();
        for (int connection = 0; connection < 8; connection++) {
            RequestPlanner planner = new RequestPlanner(book, TokenPattern.HOT, 0, false,
                    new SplittableRandom(connection), connection, 8);
            plan(planner, 20).forEach(p -> paths.add(p.path()));
        }
        assertThat(paths).containsExactly("/p/r0");
    }

    @Test
    void reads_carry_no_token() {
        TokenBook book = new TokenBook("/p", 4, BASE);
        RequestPlanner planner = new RequestPlanner(book, TokenPattern.STALE, 0.5, true, new SplittableRandom(1), 0, 1);

        assertThat(plan(planner, 20)).noneMatch(PlannedRequest::hasToken).noneMatch(PlannedRequest::expectStale);
    }

    /** The only connection, so it owns every resource. */
    private static RequestPlanner planner(TokenBook book, TokenPattern pattern, double share) {
        return new RequestPlanner(book, pattern, share, false, new SplittableRandom(42), 0, 1);
    }

    private static List<PlannedRequest> plan(RequestPlanner planner, int count) {
        return Stream.generate(planner::next).limit(count).toList();
    }
}
