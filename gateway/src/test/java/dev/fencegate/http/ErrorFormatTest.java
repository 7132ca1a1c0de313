package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import java.io.ByteArrayInputStream;
import java.util.Arrays;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.w3c.dom.Document;
import software.amazon.awssdk.awscore.internal.AwsErrorCode;

/** S3 clients get S3-style XML errors with codes their SDKs do not retry; everybody else gets problem+json. */
class ErrorFormatTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
        "SigV4 header   | AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=ab | - | - | /b/k | S3_XML",
        "SigV2 header   | AWS AKID:c2lnbmF0dXJl | -                | -    | /b/k                                   | S3_XML",
        "content sha256 | -                     | UNSIGNED-PAYLOAD | -    | /b/k                                   | S3_XML",
        "anonymous SDK  | -                     | -                | 1f2e | /b/k                                   | S3_XML",
        "presigned V4   | -                     | -                | -    | /b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=ab | S3_XML",
        "presigned V2   | -                     | -                | -    | /b/k?AWSAccessKeyId=AKID&Signature=ab   | S3_XML",
        "bearer token   | Bearer abc            | -                | -    | /b/k?algorithm=x                       | PROBLEM_JSON",
        "nothing        | -                     | -                | -    | /b/k                                   | PROBLEM_JSON"})
    void anS3ClientIsKnownByItsSignature(String name, String authorization, String sha256, String invocation, String target,
                                         ErrorFormat expected) {
        assertThat(ErrorFormat.of(authorization == null ? null : authorization.trim(), sha256 == null ? null : sha256.trim(),
                invocation == null ? null : invocation.trim(), target.trim())).isEqualTo(expected);
    }

    @Test
    void anS3ErrorCarriesCodeMessageResourceAndRequestId() throws Exception {
        FenceClaim claim = new FenceClaim(new ResourceKey("/b/a&<k>"), new FencingToken(8), Optional.empty());
        Problem stale = Problem.of(new FenceDecision.Stale(claim, new Fence(claim.resource(), new FencingToken(9), Optional.empty())));

        Document xml = parse(ErrorFormat.S3_XML.body(stale, "/ignored", "REQ123"));

        assertThat(xml.getDocumentElement().getTagName()).isEqualTo("Error");
        assertThat(text(xml, "Code")).isEqualTo("FencingTokenStale");
        assertThat(text(xml, "Message")).contains("token 8 is below the fence 9");
        assertThat(text(xml, "Resource")).isEqualTo("/b/a&<k>");
        assertThat(text(xml, "RequestId")).isEqualTo("REQ123");
        assertThat(ErrorFormat.S3_XML.contentType()).isEqualTo("application/xml");
    }

    @Test
    void aProblemNamingNoResourceNamesTheRequestPathAndCharactersXmlCannotCarryAreReplaced() throws Exception {
        Document xml = parse(ErrorFormat.S3_XML.body(Problem.of(Outcome.BAD_REQUEST, "bad \u0001 byte \"here\""), "/b/k", "R"));

        assertThat(text(xml, "Resource")).isEqualTo("/b/k");
        assertThat(text(xml, "Message")).isEqualTo("bad ? byte \"here\"");
    }

    @Test
    void otherClientsKeepProblemJson() {
        Problem problem = Problem.of(Outcome.MISSING_TOKEN, "a write needs a token");
        assertThat(ErrorFormat.PROBLEM_JSON.body(problem, "/b/k", "R")).isEqualTo(problem.toJson());
        assertThat(ErrorFormat.PROBLEM_JSON.contentType()).isEqualTo("application/problem+json");
    }

    @ParameterizedTest
    @EnumSource(value = Outcome.class, names = "FORWARDED", mode = EnumSource.Mode.EXCLUDE)
    void noS3CodeIsOneTheSdkRetriesOrTreatsAsClockSkew(Outcome outcome) {
        String code = outcome.s3Code();
        assertThat(code).matches("(Fencing|Fencegate)[A-Za-z]+");
        assertThat(AwsErrorCode.isRetryableErrorCode(code)).isFalse();
        assertThat(AwsErrorCode.isThrottlingErrorCode(code)).isFalse();
        assertThat(AwsErrorCode.isPossibleClockSkewErrorCode(code)).isFalse();
        assertThat(AwsErrorCode.isDefiniteClockSkewErrorCode(code)).isFalse();
    }

    @Test
    void s3CodesAreDistinctAndTheTokenRefusalsHaveTheirDocumentedNames() {
        assertThat(Arrays.stream(Outcome.values()).map(Outcome::s3Code)).doesNotHaveDuplicates();
        assertThat(Outcome.STALE_TOKEN.s3Code()).isEqualTo("FencingTokenStale");
        assertThat(Outcome.MISSING_TOKEN.s3Code()).isEqualTo("FencingTokenMissing");
        assertThat(Outcome.MALFORMED_TOKEN.s3Code()).isEqualTo("FencingTokenMalformed");
        assertThat(Outcome.REUSED_TOKEN.s3Code()).isEqualTo("FencingTokenReused");
    }

    private static Document parse(byte[] body) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newDefaultInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(body));
    }

    private static String text(Document xml, String element) {
        return xml.getElementsByTagName(element).item(0).getTextContent();
    }
}
