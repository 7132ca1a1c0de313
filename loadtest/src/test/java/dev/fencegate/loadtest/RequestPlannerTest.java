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

    @Test
    void job_objects_are_new_paths_under_their_job_carrying_the_jobs_current_token() {
        TokenBook book = new TokenBook("/p", 4, BASE);
        book.bump(2);
        Set<String> paths = new HashSet<>();
        for (int connection = 0; connection < 2; connection++) {
            for (PlannedRequest request : plan(new RequestPlanner(book, TokenPattern.JOB_OBJECTS, 0, false,
                    new SplittableRandom(connection), connection, 2), 100)) {
                assertThat(paths.add(request.path())).as(request.path()).isTrue();
                int job = Integer.parseInt(request.path().substring("/p/r".length(), request.path().indexOf('/', 1 + "/p".length())));
                assertThat(request.path()).startsWith(book.path(job) + "/new-");
                assertThat(request.token()).isEqualTo(book.current(job));
            }
        }
        assertThat(paths).hasSize(200).noneMatch(path -> path.equals(book.path(2)));
        assertThat(paths.stream().filter(path -> path.startsWith("/p/r2/"))).isNotEmpty();
    }

    @Test
    void new_objects_never_repeat_a_path_across_connections_or_books_and_carry_the_token_base() {
        TokenBook book = new TokenBook("/p", 64, BASE);
        TokenBook laterBook = new TokenBook("/p", 64, BASE);
        Set<String> paths = new HashSet<>();
        List<PlannedRequest> planned = new java.util.ArrayList<>();
        for (TokenBook each : List.of(book, laterBook)) {
            for (int connection = 0; connection < 8; connection++) {
                planned.addAll(plan(new RequestPlanner(each, TokenPattern.NEW_OBJECTS, 0, false,
                        new SplittableRandom(connection), connection, 8), 500));
            }
        }

        planned.forEach(p -> assertThat(paths.add(p.path())).as(p.path()).isTrue());
        assertThat(paths).hasSize(8_000).allMatch(path -> path.startsWith("/p/new-"));
        assertThat(paths).doesNotContain(book.path(0), book.path(63));
        assertThat(planned).extracting(PlannedRequest::token).containsOnly(BASE);
    }

    @Test
    void raises_go_one_above_the_last_token_of_their_resource_and_each_resource_has_one_connection() {
        TokenBook book = new TokenBook("/p", 1000, BASE);
        List<RequestPlanner> planners = IntStream.range(0, 32).mapToObj(c -> new RequestPlanner(book,
                TokenPattern.RAISES, 0, false, new SplittableRandom(c), c, 32)).toList();
        Map<String, Long> last = new HashMap<>();
        Map<String, Integer> writerOf = new HashMap<>();

        for (int turn = 0; turn < 200; turn++) {
            for (int connection = 0; connection < planners.size(); connection++) {
                PlannedRequest request = planners.get(connection).next();
                assertThat(writerOf.putIfAbsent(request.path(), connection)).isIn(null, connection);
                assertThat(request.token()).isEqualTo(last.getOrDefault(request.path(), BASE) + 1);
                last.put(request.path(), request.token());
            }
        }

        assertThat(writerOf).hasSize(1000);
        assertThat(last.values()).allMatch(token -> token > BASE);
    }

    @Test
    void mixed_is_ninety_percent_current_nine_percent_new_objects_and_one_percent_raises() {
        TokenBook book = new TokenBook("/p", 1024, BASE);
        RequestPlanner planner = planner(book, TokenPattern.MIXED, 0);
        Map<String, Long> last = new HashMap<>();
        int raises = 0;
        int newObjects = 0;
        int current = 0;

        List<PlannedRequest> planned = plan(planner, 100_000);

        assertThat(planned).noneMatch(PlannedRequest::expectStale);
        for (PlannedRequest request : planned) {
            long before = last.getOrDefault(request.path(), BASE);
            if (request.path().startsWith("/p/new-")) {
                assertThat(last).doesNotContainKey(request.path());
                assertThat(request.token()).isEqualTo(BASE);
                newObjects++;
            } else if (request.token() == before + 1) {
                raises++;
            } else {
                assertThat(request.token()).isEqualTo(before);
                current++;
            }
            last.put(request.path(), request.token());
        }

        assertThat(raises / 100_000.0).isCloseTo(0.01, within(0.002));
        assertThat(newObjects / 100_000.0).isCloseTo(0.09, within(0.005));
        assertThat(current / 100_000.0).isCloseTo(0.90, within(0.005));
    }

    @Test
    void workloads_are_named_as_on_the_command_line_and_an_unknown_name_says_what_was_expected() {
        assertThat(Workload.named("new-objects")).isEqualTo(Workload.NEW_OBJECTS);
        assertThat(Workload.named("raises").defaultResources()).isEqualTo(1000);
        assertThat(java.util.Arrays.stream(Workload.values()).map(Workload::cliName))
                .containsExactly("same-token", "new-objects", "raises", "mixed", "job-objects");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> Workload.named("raise"))
                .withMessage("workload: raise (expected: same-token, new-objects, raises, mixed, job-objects)");
    }

    @Test
    void raising_workloads_need_a_resource_per_connection_at_least() {
        LoadSettings defaults = LoadSettings.defaults(java.net.URI.create("http://127.0.0.1:1"));
        for (TokenPattern pattern : List.of(TokenPattern.RAISES, TokenPattern.MIXED, TokenPattern.BUMPS)) {
            org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(() -> defaults.withPattern(pattern).withLoad(4096, 32, 31))
                    .withMessageContaining("resources: 31 (expected: >= connections (32)");
        }
        assertThat(defaults.withPattern(TokenPattern.NEW_OBJECTS).withLoad(4096, 32, 1).resources()).isEqualTo(1);
    }

    /** The only connection, so it owns every resource. */
    private static RequestPlanner planner(TokenBook book, TokenPattern pattern, double share) {
        return new RequestPlanner(book, pattern, share, false, new SplittableRandom(42), 0, 1);
    }

    private static List<PlannedRequest> plan(RequestPlanner planner, int count) {
        return Stream.generate(planner::next).limit(count).toList();
    }
}
