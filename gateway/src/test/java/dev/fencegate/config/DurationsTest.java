package dev.fencegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Durations as operators write them, and as messages print them. */
class DurationsTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void parsesMillisecondsSecondsMinutesHoursAndDays(String text, Duration expected) {
        assertThat(Durations.parse(text)).isEqualTo(expected);
    }

    static Stream<Arguments> valid() {
        return Stream.of(
                Arguments.of("250ms", Duration.ofMillis(250)),
                Arguments.of("5s", Duration.ofSeconds(5)),
                Arguments.of("2m", Duration.ofMinutes(2)),
                Arguments.of("6h", Duration.ofHours(6)),
                Arguments.of("7d", Duration.ofDays(7)),
                Arguments.of("0s", Duration.ZERO), // the setting that uses it decides whether zero is allowed
                Arguments.of(" 5s ", Duration.ofSeconds(5)),
                Arguments.of("999999999ms", Duration.ofMillis(999_999_999)));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "5", "s", "5w", "1.5s", "-5s", "+5s", "5 s", "5S", "5MS", "5D", "1000000000s", "5s5ms", "PT5S"})
    void refusesAnythingElseQuotingTheValueAndTheExpectedForm(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "'")
                .hasMessageContaining("expected a duration such as 500ms, 5s, 2m, 6h or 7d");
    }

    @ParameterizedTest(name = "{0} prints as {1}")
    @MethodSource("printed")
    void printsWholeDaysAsDaysWholeSecondsAsSecondsAndTheRestAsMilliseconds(Duration duration, String text) {
        assertThat(Durations.format(duration)).isEqualTo(text);
        assertThat(Durations.parse(text)).isEqualTo(duration);
    }

    static Stream<Arguments> printed() {
        return Stream.of(
                Arguments.of(Duration.ZERO, "0s"),
                Arguments.of(Duration.ofMillis(250), "250ms"),
                Arguments.of(Duration.ofMillis(1500), "1500ms"),
                Arguments.of(Duration.ofSeconds(5), "5s"),
                Arguments.of(Duration.ofMinutes(2), "120s"),
                Arguments.of(Duration.ofHours(6), "21600s"),
                Arguments.of(Duration.ofDays(7), "7d"));
    }
}
