package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The keys of a DeleteObjects body are read exactly as S3 documents them, or the body is refused. */
class DeleteObjectsKeysTest {

    private static final String NS = " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";

    @Test
    void readsEveryKeyInOrderWithOrWithoutTheS3Namespace() {
        String body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete" + NS + "><Quiet>true</Quiet>"
                + "<Object><Key>a/b.txt</Key><VersionId>v1</VersionId></Object>\n  <Object><Key>a &amp; b</Key></Object>"
                + "<Object><Key><![CDATA[x<y]]></Key><ETag>\"e\"</ETag></Object></Delete>";

        assertThat(parse(body)).isEqualTo(new DeleteObjectsKeys.KeysParse.Keys(List.of("a/b.txt", "a & b", "x<y")));
        assertThat(parse("<Delete><Object><Key>k</Key></Object></Delete>"))
                .isEqualTo(new DeleteObjectsKeys.KeysParse.Keys(List.of("k")));
    }

    @Test
    void aDoctypeIsRefusedSoNoEntityIsExpandedAndNoFileIsRead(@TempDir Path dir) throws Exception {
        Path secret = Files.writeString(dir.resolve("secret"), "SECRET");
        String external = "<?xml version=\"1.0\"?><!DOCTYPE Delete [<!ENTITY x SYSTEM \"" + secret.toUri() + "\">]>"
                + "<Delete><Object><Key>&x;</Key></Object></Delete>";
        String internal = "<!DOCTYPE Delete [<!ENTITY x \"k\">]><Delete><Object><Key>&x;</Key></Object></Delete>";

        assertThat(parse(external)).isInstanceOf(DeleteObjectsKeys.KeysParse.Refused.class);
        assertThat(parse(internal)).isInstanceOf(DeleteObjectsKeys.KeysParse.Refused.class);
    }

    static Stream<Arguments> refusedBodies() {
        return Stream.of(
                Arguments.of("not XML", "delete a, b"),
                Arguments.of("empty", ""),
                Arguments.of("wrong root", "<Remove><Object><Key>k</Key></Object></Remove>"),
                Arguments.of("no objects", "<Delete><Quiet>true</Quiet></Delete>"),
                Arguments.of("object without key", "<Delete><Object><VersionId>v</VersionId></Object></Delete>"),
                Arguments.of("two keys in one object", "<Delete><Object><Key>a</Key><Key>b</Key></Object></Delete>"),
                Arguments.of("key nested deeper", "<Delete><Object><Extra><Key>a</Key></Extra><Key>b</Key></Object></Delete>"),
                Arguments.of("unknown element", "<Delete><Object><Key>a</Key></Object><Keys>b</Keys></Delete>"),
                Arguments.of("comment inside a key", "<Delete><Object><Key>a<!--x-->b</Key></Object></Delete>"),
                Arguments.of("processing instruction", "<Delete><?pi x?><Object><Key>a</Key></Object></Delete>"),
                Arguments.of("markup inside a key", "<Delete><Object><Key>a<b/>c</Key></Object></Delete>"),
                Arguments.of("empty key", "<Delete><Object><Key></Key></Object></Delete>"),
                Arguments.of("key with leading space", "<Delete><Object><Key> a</Key></Object></Delete>"),
                Arguments.of("key with trailing newline", "<Delete><Object><Key>a\n</Key></Object></Delete>"),
                Arguments.of("text between objects", "<Delete>x<Object><Key>a</Key></Object></Delete>"),
                Arguments.of("second root", "<Delete><Object><Key>a</Key></Object></Delete><Delete/>"),
                Arguments.of("processing instruction after the root",
                        "<Delete><Object><Key>a</Key></Object></Delete><?x\r\n--B\r\nContent-Disposition: form-data; name=\"key\"\r\n?>"),
                Arguments.of("comment after the root", "<Delete><Object><Key>a</Key></Object></Delete>\n<!-- x -->"),
                Arguments.of("unclosed", "<Delete><Object><Key>a</Key></Object>"),
                Arguments.of("a key as an attribute beside the element", "<Delete><Object Key=\"victim\"><Key>a</Key></Object></Delete>"),
                Arguments.of("an attribute on a key", "<Delete><Object><Key Key=\"victim\">a</Key></Object></Delete>"),
                Arguments.of("an attribute on the root", "<Delete Quiet=\"true\"><Object><Key>a</Key></Object></Delete>"),
                Arguments.of("too many keys", "<Delete>" + "<Object><Key>k</Key></Object>".repeat(DeleteObjectsKeys.MAX_KEYS + 1) + "</Delete>"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedBodies")
    void anythingButTheDocumentedShapeIsRefused(String name, String body) {
        assertThat(parse(body)).as(name).isInstanceOfSatisfying(DeleteObjectsKeys.KeysParse.Refused.class,
                refused -> assertThat(refused.detail()).startsWith("DeleteObjects body: "));
    }

    @Test
    void aThousandKeysAreAccepted() {
        assertThat(parse("<Delete>" + "<Object><Key>k</Key></Object>".repeat(DeleteObjectsKeys.MAX_KEYS) + "</Delete>"))
                .isInstanceOfSatisfying(DeleteObjectsKeys.KeysParse.Keys.class, keys -> assertThat(keys.keys()).hasSize(1000));
    }

    @Test
    void aKeyBecomesTheTargetAClientWouldSendForIt() {
        assertThat(DeleteObjectsKeys.target("/bucket", "dir/a b+c&d~é.txt")).isEqualTo("/bucket/dir/a%20b%2Bc%26d~%C3%A9.txt");
        assertThat(DeleteObjectsKeys.target("/bucket", "../x")).isEqualTo("/bucket/../x");
    }

    @Test
    void keysAreFencedUnderTheSameResourceAsTheirPathSpelling() {
        var claims = ClaimRules.plain().parseAll("/bucket", List.of("dir/report-1.csv", "a b", "dir/report-1.csv"), List.of("5"), List.of(), List.of());
        var direct = ClaimParser.parse("/bucket/dir/%72eport%2d1.csv?versionId=1", List.of("5"), List.of());

        assertThat(claims).isInstanceOfSatisfying(ClaimParser.ClaimsParse.Valid.class, valid -> {
            assertThat(valid.claims()).extracting(claim -> claim.resource().value())
                    .containsExactly("/bucket/dir/report-1.csv", "/bucket/a%20b");
            assertThat(valid.claims().get(0)).isEqualTo(((ClaimParser.ClaimParse.Valid) direct).claim());
        });
    }

    @Test
    void oneAmbiguousKeyRefusesTheWholeRequest() {
        var claims = ClaimRules.plain().parseAll("/bucket", List.of("fine", "x/../y"), List.of("5"), List.of(), List.of());

        assertThat(claims).isInstanceOfSatisfying(ClaimParser.ClaimsParse.Refused.class, refused -> {
            assertThat(refused.problem().outcome()).isEqualTo(Outcome.AMBIGUOUS_PATH);
            assertThat(refused.problem().detail()).contains("x/../y");
        });
    }

    private static DeleteObjectsKeys.KeysParse parse(String body) {
        return DeleteObjectsKeys.parse(body.getBytes(StandardCharsets.UTF_8));
    }
}
