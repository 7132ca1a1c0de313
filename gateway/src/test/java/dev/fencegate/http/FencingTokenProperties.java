package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.statistics.Statistics;

/** The token grammar has exactly one spelling per token, and it is {@link Long#toString(long)}. */
class FencingTokenProperties {

    /** ASCII digits plus everything a lenient parser (Long.parseLong among them) might accept. */
    private static final String ALPHABET = "0123456789+- "
            + "\u0660\u0661\u0669" // Arabic-Indic digits
            + "\uFF10\uFF15" // fullwidth digits
            + "\u0966\u096F" // Devanagari digits
            + "\t";

    @Property
    void everyTokenSpelledByLongToStringParsesToItself(@ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long value) {
        assertThat(FencingHeaders.token(List.of(Long.toString(value))))
                .isEqualTo(new FencingHeaders.TokenParse.Valid(new FencingToken(value)));
    }

    @Property(tries = 3000)
    void aSpellingIsAcceptedOnlyWhenItIsTheCanonicalSpellingOfAToken(@ForAll("spellings") String header) {
        Optional<Long> lenient = lenientValue(header);
        boolean canonical = lenient.filter(v -> v >= 1 && Long.toString(v).equals(header)).isPresent();

        Statistics.label("canonical").collect(canonical);
        Statistics.label("canonical").coverage(coverage -> {
            coverage.check(true).count(n -> n >= 100);
            coverage.check(false).count(n -> n >= 1000);
        });

        FencingHeaders.TokenParse parse = FencingHeaders.token(List.of(header));

        if (canonical) {
            assertThat(parse).isEqualTo(new FencingHeaders.TokenParse.Valid(new FencingToken(lenient.get())));
        } else {
            assertThat(parse).isInstanceOfSatisfying(FencingHeaders.TokenParse.Refused.class,
                    refused -> assertThat(refused.refusal()).isInstanceOf(FenceDecision.MalformedToken.class));
        }
    }

    /**
     * Random strings over the alphabet, and canonical tokens with a prefix or suffix glued on
     * (zeros, signs, spaces, foreign digits) so that near-misses are common.
     */
    @Provide
    Arbitrary<String> spellings() {
        Arbitrary<String> random = Arbitraries.strings().withChars(ALPHABET.toCharArray()).ofMinLength(0).ofMaxLength(22);
        Arbitrary<String> canonical = Arbitraries.longs().between(1, Long.MAX_VALUE).map(v -> Long.toString(v));
        Arbitrary<String> affix = Arbitraries.strings().withChars(ALPHABET.toCharArray()).ofMinLength(0).ofMaxLength(3);
        Arbitrary<String> glued = Combinators.combine(affix, canonical, affix).as((before, token, after) -> before + token + after);
        return Arbitraries.oneOf(random, canonical, glued);
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
