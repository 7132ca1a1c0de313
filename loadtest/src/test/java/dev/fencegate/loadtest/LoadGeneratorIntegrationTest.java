package dev.fencegate.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Real sockets, a real (in-test) server; Netty runs with paranoid leak detection. */
class LoadGeneratorIntegrationTest {

    @RegisterExtension
    final LeakWatch leakWatch = new LeakWatch();

    @Test
    void a_fixed_rate_run_sends_the_offered_load_and_counts_stale_refusals_as_expected() throws Exception {
        try (FencingTestServer server = new FencingTestServer(0)) {
            LoadSettings settings = new LoadSettings(server.url(), "PUT", 512, 4, 2,
                    Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(5),
                    200, false, 16, "/it", TokenPattern.STALE, 0.2, false, 1_000, 7);

            Measurement measurement = LoadGenerator.run(settings);
            Counts counts = measurement.counts();

            assertThat(counts.answered()).isEqualTo(400);
            assertThat(counts.warmupAnswered()).isEqualTo(100);
            assertThat(counts.errors()).isZero();
            assertThat(counts.staleAdmitted()).isZero();
            assertThat(counts.expectedRefusals()).isBetween(40L, 120L);
            assertThat(counts.success() + counts.expectedRefusals()).isEqualTo(400);
            assertThat(server.requests.get()).isEqualTo(500);
            assertThat(measurement.result().throughput()).isEqualTo(200.0);
            assertThat(measurement.latencyMicros().getTotalCount()).isEqualTo(400);
        }
    }

    @Test
    void a_saturation_run_keeps_every_connection_busy_and_reconnects_when_the_server_closes() throws Exception {
        try (FencingTestServer server = new FencingTestServer(50)) {
            LoadSettings settings = LoadSettings.defaults(server.url())
                    .withLoad(256, 4, 64)
                    .withPhases(Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(2))
                    .atRate(0);

            Measurement measurement = LoadGenerator.run(settings);
            Counts counts = measurement.counts();

            assertThat(measurement.result().mode()).isEqualTo("saturation");
            assertThat(counts.answered()).isGreaterThan(200);
            assertThat(counts.errors()).isZero();
            assertThat(counts.success()).isEqualTo(counts.answered());
            assertThat(server.requests.get()).isGreaterThan(counts.answered());
        }
    }

    @Test
    void runs_sharing_a_token_book_keep_raising_and_creating_objects_without_a_single_refusal() throws Exception {
        try (FencingTestServer server = new FencingTestServer(0)) {
            LoadSettings raises = LoadSettings.defaults(server.url())
                    .withPattern(TokenPattern.RAISES)
                    .withLoad(256, 4, 8)
                    .withPhases(Duration.ZERO, Duration.ofMillis(500), Duration.ofSeconds(2))
                    .atRate(0);
            TokenBook book = TokenBook.of(raises);

            for (TokenPattern pattern : List.of(TokenPattern.RAISES, TokenPattern.NEW_OBJECTS, TokenPattern.MIXED,
                    TokenPattern.RAISES)) {
                Counts counts = LoadGenerator.run(raises.withPattern(pattern), book).counts();
                assertThat(counts.errors()).as(pattern.name()).isZero();
                assertThat(counts.success()).as(pattern.name()).isEqualTo(counts.answered()).isPositive();
            }

            assertThat(server.refused.get()).isZero();
            assertThat(server.pathsWritten()).isGreaterThan(8 + 100);
        }
    }
}
