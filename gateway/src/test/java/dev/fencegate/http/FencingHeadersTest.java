package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The token and holder header grammar: one canonical spelling, everything else refused. */
class FencingHeadersTest {

    @ParameterizedTest(name = "\"{0}\" is token {1}")
    @MethodSource("validTokens")
    void aCanonicalDecimalInOneHeaderIsAToken(String header, long expected) {
        assertThat(FencingHeaders.token(List.of(header)))
                .isEqualTo(new FencingHeaders.TokenParse.Valid(new FencingToken(expected)));
    }

    static Stream<Arguments> validTokens() {
        return Stream.of(
                Arguments.of("1", 1L),
                Arguments.of("42", 42L),
                Arguments.of("9223372036854775807", Long.MAX_VALUE));
    }

    @Test
    void noHeaderIsAMissingTokenNotAMalformedOne() {
        assertThat(FencingHeaders.token(List.of()))
                .isEqualTo(new FencingHeaders.TokenParse.Refused(new FenceDecision.MissingToken()));
    }

    @Test
    void twoTokenHeadersAreMalformedEvenWhenTheyAgree() {
        assertThat(malformedTokenDetail(List.of("5", "5")))
                .contains("exactly one").contains(HeaderNames.FENCING_TOKEN).contains("2");
    }

    /** Each value with a fragment of what the refusal must say was expected. */
    @ParameterizedTest(name = "\"{0}\" is refused: {1}")
    @MethodSource("malformedTokens")
    void everyOtherSpellingIsRefusedSayingWhatWasExpected(String header, String expectedInDetail) {
        assertThat(malformedTokenDetail(List.of(header)))
                .startsWith("expected")
                .contains(expectedInDetail);
    }

    static Stream<Arguments> malformedTokens() {
        return Stream.of(
                Arguments.of("0", "no leading zero"),
                Arguments.of("007", "no leading zero"),
                Arguments.of("+5", "ASCII digits only, found '+' at position 0"),
                Arguments.of("-5", "ASCII digits only, found '-' at position 0"),
                Arguments.of(" 5", "ASCII digits only, found U+0020 at position 0"),
                Arguments.of("5 5", "ASCII digits only, found U+0020 at position 1"),
                Arguments.of("5 ", "ASCII digits only, found U+0020 at position 1"),
                Arguments.of("1e3", "ASCII digits only, found 'e' at position 1"),
                Arguments.of("0x10", "ASCII digits only, found 'x' at position 1"),
                Arguments.of("9223372036854775808", "at most 9223372036854775807"),
                Arguments.of("99999999999999999999", "1 to 19 digits"),
                Arguments.of("١٢", "ASCII digits only, found U+0661 at position 0"),
                Arguments.of("５", "ASCII digits only, found U+FF15 at position 0"),
                Arguments.of(asOnTheWire("1５"), "ASCII digits only, found U+FF15 at position 1"),
                Arguments.of(asOnTheWire("١٢"), "ASCII digits only, found U+0661 at position 0"),
                Arguments.of(asOnTheWire("7\uD83D\uDE00"), "ASCII digits only, found U+1F600 at position 1"),
                Arguments.of("1\u00EF\u00BC", "ASCII digits only, found U+00EF at position 1"),
                Arguments.of("", "1 to 19 digits"));
    }

    @Test
    void noHolderHeaderIsFineAndMeansNoHolder() {
        assertThat(FencingHeaders.holder(List.of())).isEqualTo(new FencingHeaders.HolderParse.Valid(Optional.empty()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "worker-7", "node:3/lease#9", "!~"})
    void oneVisibleAsciiHolderIsKeptAsSent(String header) {
        assertThat(FencingHeaders.holder(List.of(header)))
                .isEqualTo(new FencingHeaders.HolderParse.Valid(Optional.of(new Holder(header))));
    }

    @Test
    void aHolderOfExactlyTheMaximumLengthIsKept() {
        String longest = "h".repeat(FencingHeaders.MAX_HOLDER_LENGTH);
        assertThat(FencingHeaders.holder(List.of(longest)))
                .isEqualTo(new FencingHeaders.HolderParse.Valid(Optional.of(new Holder(longest))));
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("malformedHolders")
    void aBadHolderIsRefusedSayingWhatWasExpected(String label, List<String> headers, String expectedInDetail) {
        FencingHeaders.HolderParse parse = FencingHeaders.holder(headers);
        assertThat(parse).isInstanceOf(FencingHeaders.HolderParse.Refused.class);
        FenceDecision refusal = ((FencingHeaders.HolderParse.Refused) parse).refusal();
        assertThat(refusal).isInstanceOf(FenceDecision.MalformedHolder.class);
        assertThat(((FenceDecision.MalformedHolder) refusal).detail()).startsWith("expected").contains(expectedInDetail);
    }

    static Stream<Arguments> malformedHolders() {
        return Stream.of(
                Arguments.of("two headers", List.of("a", "b"), "at most one " + HeaderNames.FENCING_HOLDER),
                Arguments.of("two equal headers", List.of("a", "a"), "at most one"),
                Arguments.of("empty", List.of(""), "1 to 200 characters, got 0"),
                Arguments.of("201 characters", List.of("h".repeat(201)), "1 to 200 characters, got 201"),
                Arguments.of("inner space", List.of("a b"), "visible ASCII only, found U+0020 at position 1"),
                Arguments.of("leading space", List.of(" a"), "visible ASCII only, found U+0020 at position 0"),
                Arguments.of("tab", List.of("a\tb"), "U+0009"),
                Arguments.of("newline", List.of("a\nb"), "U+000A"),
                Arguments.of("DEL", List.of("a\u007Fb"), "U+007F"),
                Arguments.of("non-ASCII", List.of("caf\u00E9"), "U+00E9 at position 3"),
                Arguments.of("UTF-8 on the wire", List.of(asOnTheWire("café")), "U+00E9 at position 3"));
    }

    /** A header value as the decoder hands it over: each byte of the UTF-8 text one char. */
    private static String asOnTheWire(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    private static String malformedTokenDetail(List<String> headers) {
        FencingHeaders.TokenParse parse = FencingHeaders.token(headers);
        assertThat(parse).isInstanceOf(FencingHeaders.TokenParse.Refused.class);
        FenceDecision refusal = ((FencingHeaders.TokenParse.Refused) parse).refusal();
        assertThat(refusal).isInstanceOf(FenceDecision.MalformedToken.class);
        return ((FenceDecision.MalformedToken) refusal).detail();
    }
}
