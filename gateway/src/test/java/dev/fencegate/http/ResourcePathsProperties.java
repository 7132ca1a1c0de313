package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/** Canonical keys are fixed points, spellings of one object meet, and no key is ambiguous. */
class ResourcePathsProperties {

    private static final char[] UNRESERVED =
            "abcxyzABCXYZ0129-._~".toCharArray();

    @Property(tries = 2000)
    void canonicalisingACanonicalKeyGivesTheSameKey(@ForAll("targets") String target) {
        ResourcePaths.PathParse first = ResourcePaths.canonicalise(target);
        Statistics.label("parse").collect(first.getClass().getSimpleName());
        Statistics.label("parse").coverage(coverage -> coverage.check("Canonical").percentage(p -> p >= 15));
        Assume.that(first instanceof ResourcePaths.PathParse.Canonical);
        ResourceKey key = ((ResourcePaths.PathParse.Canonical) first).key();

        assertThat(ResourcePaths.canonicalise(key.value())).isEqualTo(first);
    }

    /** Two spellings the store treats as one object are never fenced as two. */
    @Property(tries = 2000)
    void percentEncodingUnreservedCharactersNeverChangesTheKey(@ForAll("plainAndEncoded") Tuple.Tuple2<String, String> spellings) {
        String plain = spellings.get1();
        String encoded = spellings.get2();

        assertThat(ResourcePaths.canonicalise(encoded))
                .as("%s spelled as %s", plain, encoded)
                .isEqualTo(new ResourcePaths.PathParse.Canonical(new ResourceKey(plain)));
    }

    @Property(tries = 2000)
    void noCanonicalKeyIsAmbiguous(@ForAll("targets") String target) {
        ResourcePaths.PathParse parse = ResourcePaths.canonicalise(target);
        Assume.that(parse instanceof ResourcePaths.PathParse.Canonical);
        String key = ((ResourcePaths.PathParse.Canonical) parse).key().value();

        assertThat(key).startsWith("/")
                .doesNotContain("//", "/./", "/../", "%2F", "%5C", "%2E", "+", "?", "#", "\\")
                .doesNotEndWith("/.").doesNotEndWith("/..")
                .doesNotContainPattern("%(?![0-9A-F]{2})") // every escape is two upper-case hex digits
                .doesNotContainPattern("%(4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2D|5F|7E)") // no escaped unreserved
                .doesNotContainPattern("[^\\x21-\\x7E]");
    }

    /** Messy request targets: mostly pieces a key may hold, some that must be refused. */
    @Provide
    Arbitrary<String> targets() {
        Arbitrary<String> piece = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(UNRESERVED).map(String::valueOf)),
                Tuple.of(4, Arbitraries.just("/")),
                Tuple.of(3, Arbitraries.integers().between(0, 0x7F).flatMap(ResourcePathsProperties::escaped)),
                Tuple.of(2, codePoints().flatMap(ResourcePathsProperties::escapedUtf8)),
                Tuple.of(1, Arbitraries.integers().between(0x80, 0xFF).flatMap(ResourcePathsProperties::escaped)),
                Tuple.of(2, Arbitraries.of(".", "..", "%2e", "%2E")),
                Tuple.of(2, Arbitraries.of("!", "$", "&", "'", "(", ")", "*", ",", ";", "=", ":", "@")),
                Tuple.of(1, Arbitraries.of("+", "\\", " ", "%", "?q=%2F", "é", "%g0")));
        return piece.list().ofMaxSize(14).map(pieces -> "/" + String.join("", pieces));
    }

    /** A path of plain unreserved segments, and the same path with some characters percent-encoded. */
    @Provide
    Arbitrary<Tuple.Tuple2<String, String>> plainAndEncoded() {
        Arbitrary<String> segment = Arbitraries.strings().withChars(UNRESERVED).ofMinLength(1).ofMaxLength(6)
                .filter(s -> !s.equals(".") && !s.equals(".."));
        Arbitrary<String> path = Arbitraries.integers().between(0, 1).flatMap(trailing -> segment.list().ofMinSize(1).ofMaxSize(5)
                .map(segments -> "/" + String.join("/", segments) + (trailing == 1 ? "/" : "")));
        return path.flatMap(plain -> Arbitraries.integers().between(0, 2).list().ofSize(plain.length())
                .map(choices -> Tuple.of(plain, encodeSome(plain, choices))));
    }

    /** 0 keeps a character, 1 encodes it with upper-case hex, 2 with lower-case hex; '/' is kept. */
    private static String encodeSome(String plain, List<Integer> choices) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < plain.length(); i++) {
            char c = plain.charAt(i);
            int choice = c == '/' ? 0 : choices.get(i);
            if (choice == 0) {
                out.append(c);
            } else {
                String hex = String.format("%%%02X", (int) c);
                out.append(choice == 1 ? hex : hex.toLowerCase(Locale.ROOT));
            }
        }
        return out.toString();
    }

    private static Arbitrary<String> escaped(int octet) {
        return Arbitraries.of(true, false).map(upper -> {
            String hex = String.format("%%%02X", octet);
            return upper ? hex : hex.toLowerCase(Locale.ROOT);
        });
    }

    private static Arbitrary<Integer> codePoints() {
        return Arbitraries.integers().between(0x80, 0x10FFFF).filter(cp -> cp < 0xD800 || cp > 0xDFFF);
    }

    private static Arbitrary<String> escapedUtf8(int codePoint) {
        byte[] bytes = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
        Arbitrary<String> result = Arbitraries.just("");
        for (byte b : bytes) {
            result = result.flatMap(prefix -> escaped(b & 0xFF).map(e -> prefix + e));
        }
        return result;
    }
}
