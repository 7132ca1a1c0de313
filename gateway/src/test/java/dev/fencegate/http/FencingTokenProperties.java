package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.testing.SeededCases;
import dev.fencegate.testing.SeededCases.Gen;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The token grammar has exactly one spelling per token, and it is {@link Long#toString(long)}. */
class FencingTokenProperties {

    /** ASCII digits plus everything a lenient parser (Long.parseLong among them) might accept. */
    private static final char[] ALPHABET = ("0123456789+- "
            + "\u0660\u0661\u0669" // Arabic-Indic digits
            + "\uFF10\uFF15" // fullwidth digits
            + "\u0966\u096F" // Devanagari digits
            + "\t").toCharArray();
    private static final int SPELLINGS = 3000;

    static Stream<Named<Long>> tokens() {
        return SeededCases.cases("token-values", 1000, gen -> gen.longBetween(1, Long.MAX_VALUE));
    }

    @ParameterizedTest
    @MethodSource("tokens")
    void everyTokenSpelledByLongToStringParsesToItself(long value) {
        assertThat(FencingHeaders.token(List.of(Long.toString(value))))
                .isEqualTo(new FencingHeaders.TokenParse.Valid(new FencingToken(value)));
    }

    static Stream<Named<String>> spellings() {
        return SeededCases.cases("token-spellings", SPELLINGS, FencingTokenProperties::spelling);
    }

    @ParameterizedTest
    @MethodSource("spellings")
    void aSpellingIsAcceptedOnlyWhenItIsTheCanonicalSpellingOfAToken(String header) {
        Optional<Long> lenient = lenientValue(header);
        boolean canonical = canonical(header);

        FencingHeaders.TokenParse parse = FencingHeaders.token(List.of(header));

        if (canonical) {
            assertThat(parse).isEqualTo(new FencingHeaders.TokenParse.Valid(new FencingToken(lenient.get())));
        } else {
            assertThat(parse).isInstanceOfSatisfying(FencingHeaders.TokenParse.Refused.class,
                    refused -> assertThat(refused.refusal()).isInstanceOf(FenceDecision.MalformedToken.class));
        }
    }

    /** The spellings above hold enough canonical tokens and enough near-misses to mean something. */
    @Test
    void theSpellingsCoverCanonicalTokensAndNearMisses() {
        long canonical = SeededCases.values("token-spellings", SPELLINGS, FencingTokenProperties::spelling).stream()
                .filter(FencingTokenProperties::canonical).count();
        assertThat(canonical).as("canonical").isGreaterThanOrEqualTo(100);
        assertThat(SPELLINGS - canonical).as("not canonical").isGreaterThanOrEqualTo(1000);
    }

    /**
     * Random strings over the alphabet, and canonical tokens with a prefix or suffix glued on
     * (zeros, signs, spaces, foreign digits) so that near-misses are common.
     */
    private static String spelling(Gen gen) {
        return switch (gen.intBetween(0, 2)) {
            case 0 -> gen.string(ALPHABET, 0, 22);
            case 1 -> Long.toString(gen.longBetween(1, Long.MAX_VALUE));
            default -> gen.string(ALPHABET, 0, 3) + gen.longBetween(1, Long.MAX_VALUE) + gen.string(ALPHABET, 0, 3);
        };
    }

    private static boolean canonical(String header) {
        return lenientValue(header).filter(v -> v >= 1 && Long.toString(v).equals(header)).isPresent();
    }

    /** What a lenient parser would read, as an independent oracle: it accepts signs, zeros, Unicode digits. */
    private static Optional<Long> lenientValue(String text) {
        try {
            return Optional.of(Long.parseLong(text));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
