package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.SeededCases;
import dev.fencegate.testing.SeededCases.Gen;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Canonical keys are fixed points, spellings of one object meet, and no key is ambiguous. */
class ResourcePathsProperties {

    private static final char[] UNRESERVED =
            "abcxyzABCXYZ0129-._~".toCharArray();
    private static final int TARGETS = 2000;

    /** Of the generated targets, those that canonicalise: the properties below are about them. */
    static Stream<Named<String>> canonicalTargets() {
        return SeededCases.cases("targets", TARGETS, ResourcePathsProperties::target)
                .filter(target -> ResourcePaths.canonicalise(target.getPayload()) instanceof ResourcePaths.PathParse.Canonical);
    }

    @ParameterizedTest
    @MethodSource("canonicalTargets")
    void canonicalisingACanonicalKeyGivesTheSameKey(String target) {
        ResourcePaths.PathParse first = ResourcePaths.canonicalise(target);
        ResourceKey key = ((ResourcePaths.PathParse.Canonical) first).key();

        assertThat(ResourcePaths.canonicalise(key.value())).isEqualTo(first);
    }

    /** Enough of the messy targets canonicalise for the properties about canonical keys to mean something. */
    @Test
    void atLeastOneTargetInSevenCanonicalises() {
        long canonical = SeededCases.values("targets", TARGETS, ResourcePathsProperties::target).stream()
                .filter(target -> ResourcePaths.canonicalise(target) instanceof ResourcePaths.PathParse.Canonical).count();
        assertThat(canonical * 100 / TARGETS).as("percent canonical").isGreaterThanOrEqualTo(15);
    }

    record Spellings(String plain, String encoded) {
    }

    static Stream<Named<Spellings>> plainAndEncoded() {
        return SeededCases.cases("plain-and-encoded", TARGETS, ResourcePathsProperties::plainAndEncoded);
    }

    /** Two spellings the store treats as one object are never fenced as two. */
    @ParameterizedTest
    @MethodSource("plainAndEncoded")
    void percentEncodingUnreservedCharactersNeverChangesTheKey(Spellings spellings) {
        assertThat(ResourcePaths.canonicalise(spellings.encoded()))
                .as("%s spelled as %s", spellings.plain(), spellings.encoded())
                .isEqualTo(new ResourcePaths.PathParse.Canonical(new ResourceKey(spellings.plain())));
    }

    @ParameterizedTest
    @MethodSource("canonicalTargets")
    void noCanonicalKeyIsAmbiguous(String target) {
        String key = ((ResourcePaths.PathParse.Canonical) ResourcePaths.canonicalise(target)).key().value();

        assertThat(key).startsWith("/")
                .doesNotContain("//", "/./", "/../", "%2F", "%5C", "%2E", "+", "?", "#", "\\")
                .doesNotEndWith("/.").doesNotEndWith("/..")
                .doesNotContainPattern("%(?![0-9A-F]{2})") // every escape is two upper-case hex digits
                .doesNotContainPattern("%(4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2D|5F|7E)") // no escaped unreserved
                .doesNotContainPattern("[^\\x21-\\x7E]");
    }

    /** Messy request targets: mostly pieces a key may hold, some that must be refused. */
    private static String target(Gen gen) {
        List<String> pieces = gen.list(0, 14, () -> switch (gen.frequency(6, 4, 3, 2, 1, 2, 2, 1)) {
            case 0 -> String.valueOf(UNRESERVED[gen.intBetween(0, UNRESERVED.length - 1)]);
            case 1 -> "/";
            case 2 -> escaped(gen, gen.intBetween(0, 0x7F));
            case 3 -> escapedUtf8(gen, codePoint(gen));
            case 4 -> escaped(gen, gen.intBetween(0x80, 0xFF));
            case 5 -> gen.pick(".", "..", "%2e", "%2E");
            case 6 -> gen.pick("!", "$", "&", "'", "(", ")", "*", ",", ";", "=", ":", "@");
            default -> gen.pick("+", "\\", " ", "%", "?q=%2F", "é", "%g0");
        });
        return "/" + String.join("", pieces);
    }

    /** A path of plain unreserved segments, and the same path with some characters percent-encoded. */
    private static Spellings plainAndEncoded(Gen gen) {
        boolean trailing = gen.chance(0.5);
        List<String> segments = gen.list(1, 5, () -> {
            String segment;
            do {
                segment = gen.string(UNRESERVED, 1, 6);
            } while (segment.equals(".") || segment.equals(".."));
            return segment;
        });
        String plain = "/" + String.join("/", segments) + (trailing ? "/" : "");
        return new Spellings(plain, encodeSome(plain, gen.list(plain.length(), plain.length(), () -> gen.intBetween(0, 2))));
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

    private static String escaped(Gen gen, int octet) {
        String hex = String.format("%%%02X", octet);
        return gen.chance(0.5) ? hex : hex.toLowerCase(Locale.ROOT);
    }

    private static int codePoint(Gen gen) {
        int codePoint;
        do {
            codePoint = gen.intBetween(0x80, 0x10FFFF);
        } while (codePoint >= 0xD800 && codePoint <= 0xDFFF);
        return codePoint;
    }

    private static String escapedUtf8(Gen gen, int codePoint) {
        StringBuilder out = new StringBuilder();
        for (byte b : new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8)) {
            out.append(escaped(gen, b & 0xFF));
        }
        return out.toString();
    }
}
