package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One key per object: equivalent spellings meet, spellings stores read differently are refused. */
class ResourcePathsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("canonicalExamples")
    void equivalentSpellingsGetOneKey(String target, String key) {
        assertThat(ResourcePaths.canonicalise(target))
                .isEqualTo(new ResourcePaths.PathParse.Canonical(new ResourceKey(key)));
    }

    static Stream<Arguments> canonicalExamples() {
        return Stream.of(
                Arguments.of("/", "/"),
                Arguments.of("/a/b", "/a/b"),
                Arguments.of("/a/b/", "/a/b/"), // a trailing slash names another object
                Arguments.of("/a/b?x=1", "/a/b"),
                Arguments.of("/a/b?", "/a/b"),
                Arguments.of("/a/b?x=/../%2F", "/a/b"), // the query is not part of the key
                Arguments.of("/%61/b", "/a/b"),
                Arguments.of("/a%2db", "/a-b"),
                Arguments.of("/a%7e", "/a~"),
                Arguments.of("/a%2E%5f", "/a._"),
                Arguments.of("/a%3a", "/a:"), // stores decode every escape: sub-delimiters meet their literal form
                Arguments.of("/b/date%3D2024/part-0", "/b/date=2024/part-0"),
                Arguments.of("/a%21%24%26%27%28%29%2A%2C%3D%3A%40", "/a!$&'()*,=:@"),
                Arguments.of("/a%2b%3b", "/a%2B%3B"), // literal '+' and ';' are refused, so their key form is the escape
                Arguments.of("/a%20b%3F%23%5B%5d", "/a%20b%3F%23%5B%5D"),
                Arguments.of("/a%25", "/a%25"),
                Arguments.of("/caf%C3%A9", "/caf%C3%A9"),
                Arguments.of("/caf%c3%a9", "/caf%C3%A9"),
                Arguments.of("/%F0%9F%98%80", "/%F0%9F%98%80"),
                Arguments.of("/a.b/.c/..d", "/a.b/.c/..d"), // dots inside a segment are no dot segment
                Arguments.of("/a:b@c!$&'()*,=", "/a:b@c!$&'()*,="), // ';' is refused: servlet stores drop what follows it
                Arguments.of("/a%3Bv=1", "/a%3Bv=1"));
    }

    /** Fence rows are indexed by the key and raises announced with it: a longer one could be neither. */
    @Test
    void aPathLongerThanAFenceCanBeKeptForIsRefused() {
        String longest = "/b/" + "k".repeat(ResourcePaths.MAX_KEY_LENGTH - 3);
        assertThat(ResourcePaths.canonicalise(longest)).isInstanceOf(ResourcePaths.PathParse.Canonical.class);
        assertThat(ResourcePaths.canonicalise(longest + "k")).isInstanceOfSatisfying(ResourcePaths.PathParse.Refused.class,
                refused -> assertThat(refused.detail()).contains("above the " + ResourcePaths.MAX_KEY_LENGTH));
        // Non-ASCII counts as its escapes: 854 two-byte characters are 5,124 characters of key.
        assertThat(ResourcePaths.canonicalise("/b/" + "%C3%A9".repeat(854))).isInstanceOf(ResourcePaths.PathParse.Refused.class);
    }

    /** A user whose SDK wrote a key with '//' never typed %2F: the refusal says where it came from. */
    @Test
    void anEncodedSlashIsRefusedNamingTheKeysThatSdksSendSo() {
        assertThat(ResourcePaths.canonicalise("/bucket/a/%2Fb")).isInstanceOfSatisfying(ResourcePaths.PathParse.Refused.class,
                refused -> assertThat(refused.detail()).contains("%2F").contains("'//'").contains("starting with '/'"));
    }

    @ParameterizedTest(name = "{0} refused ({1})")
    @MethodSource("refusals")
    void ambiguousTargetsAreRefusedWithAReason(String target, String why) {
        ResourcePaths.PathParse parse = ResourcePaths.canonicalise(target);
        assertThat(parse).isInstanceOfSatisfying(ResourcePaths.PathParse.Refused.class,
                refused -> assertThat(refused.detail()).isNotBlank());
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("", "empty"),
                Arguments.of("a/b", "no leading slash"),
                Arguments.of("http://x/a", "absolute form"),
                Arguments.of("*", "asterisk form"),
                Arguments.of("//a", "empty first segment"),
                Arguments.of("/a//b", "doubled slash"),
                Arguments.of("/a/%2F", "encoded slash making a doubled one"),
                Arguments.of("/a/./b", "dot segment"),
                Arguments.of("/a/../b", "dot-dot segment"),
                Arguments.of("/a/..", "trailing dot-dot segment"),
                Arguments.of("/.", "lone dot segment"),
                Arguments.of("/a/%2e%2E/b", "encoded dot-dot segment"),
                Arguments.of("/a/%2E/b", "encoded dot segment"),
                Arguments.of("/a%2Fb", "encoded slash"),
                Arguments.of("/a%2fb", "encoded slash, lower hex"),
                Arguments.of("/a%5Cb", "encoded backslash"),
                Arguments.of("/a\\b", "backslash"),
                Arguments.of("/a%00b", "encoded NUL"),
                Arguments.of("/a%0Ab", "encoded line feed"),
                Arguments.of("/a%7F", "encoded DEL"),
                Arguments.of("/a%G1", "bad hex"),
                Arguments.of("/a%4", "truncated escape"),
                Arguments.of("/a%", "lone percent"),
                Arguments.of("/a%%41", "percent before an escape"),
                Arguments.of("/a+b", "plus"),
                Arguments.of("/a/b;v=1", "path parameter, dropped by servlet stores"),
                Arguments.of("/caf%C0%AF", "overlong UTF-8"),
                Arguments.of("/a%ED%A0%80", "UTF-8 of a surrogate"),
                Arguments.of("/a%C3", "truncated UTF-8 at the end"),
                Arguments.of("/a%C3/b", "truncated UTF-8 before a literal"),
                Arguments.of("/a%C3%41", "truncated UTF-8 before an ASCII escape"),
                Arguments.of("/a%FF", "never UTF-8"),
                Arguments.of("/a b", "space"),
                Arguments.of("/a\tb", "tab"),
                Arguments.of("/a#b", "fragment"),
                Arguments.of("/a\"b", "quote"),
                Arguments.of("/a|b", "pipe"),
                Arguments.of("/café", "raw non-ASCII"));
    }
}
