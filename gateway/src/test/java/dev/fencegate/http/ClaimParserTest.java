package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.ResourceKey;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A write's claim is read from its target and headers, or refused before the fence is asked. */
class ClaimParserTest {

    @Test
    void aGoodWriteClaimsTheCanonicalKeyItsTokenAndHolder() {
        assertThat(ClaimParser.parse("/bucket/caf%c3%a9?versionId=3", List.of("17"), List.of("worker-1")))
                .isEqualTo(new ClaimParser.ClaimParse.Valid(new FenceClaim(
                        new ResourceKey("/bucket/caf%C3%A9"), new FencingToken(17), Optional.of(new Holder("worker-1")))));
    }

    @Test
    void theHolderIsOptional() {
        assertThat(ClaimParser.parse("/a", List.of("1"), List.of()))
                .isEqualTo(new ClaimParser.ClaimParse.Valid(new FenceClaim(
                        new ResourceKey("/a"), new FencingToken(1), Optional.empty())));
    }

    @Test
    void anAmbiguousPathIsRefusedAs400NamingTheReason() {
        Problem problem = refused("/a/../b", List.of("1"), List.of());

        assertThat(problem.outcome()).isEqualTo(Outcome.AMBIGUOUS_PATH);
        assertThat(problem.outcome().status()).isEqualTo(400);
        assertThat(problem.detail()).startsWith("request target refused: ").contains("dot segment");
    }

    @Test
    void theTargetIsJudgedBeforeTheToken() {
        assertThat(refused("/a//b", List.of(), List.of()).outcome()).isEqualTo(Outcome.AMBIGUOUS_PATH);
    }

    @Test
    void aMissingTokenIs428() {
        Problem problem = refused("/a", List.of(), List.of("w"));

        assertThat(problem.outcome()).isEqualTo(Outcome.MISSING_TOKEN);
        assertThat(problem.outcome().status()).isEqualTo(428);
    }

    @Test
    void aMalformedTokenIs400NamingTheHeaderAndWhatWasExpected() {
        Problem problem = refused("/a", List.of("007"), List.of());

        assertThat(problem.outcome()).isEqualTo(Outcome.MALFORMED_TOKEN);
        assertThat(problem.outcome().status()).isEqualTo(400);
        assertThat(problem.detail()).startsWith(HeaderNames.FENCING_TOKEN + ": expected").contains("leading zero");
    }

    @Test
    void aMalformedHolderIs400NamingTheHeader() {
        Problem problem = refused("/a", List.of("3"), List.of("a b"));

        assertThat(problem.outcome()).isEqualTo(Outcome.MALFORMED_HOLDER);
        assertThat(problem.outcome().status()).isEqualTo(400);
        assertThat(problem.detail()).startsWith(HeaderNames.FENCING_HOLDER + ": expected visible ASCII");
    }

    @Test
    void theTokenIsJudgedBeforeTheHolder() {
        assertThat(refused("/a", List.of("x"), List.of("")).outcome()).isEqualTo(Outcome.MALFORMED_TOKEN);
    }

    private static Problem refused(String target, List<String> tokens, List<String> holders) {
        ClaimParser.ClaimParse parse = ClaimParser.parse(target, tokens, holders);
        assertThat(parse).isInstanceOf(ClaimParser.ClaimParse.Refused.class);
        return ((ClaimParser.ClaimParse.Refused) parse).problem();
    }
}
