package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.ResourceKey;
import java.io.IOException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Problem bodies are RFC 9457 JSON; a fence refusal names the resource, the token and the fence. */
class ProblemTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ResourceKey RESOURCE = new ResourceKey("/orders/7");

    @Test
    void aStaleRefusalNamesTheResourceTheTokenAndTheFence() throws IOException {
        FenceDecision stale = new FenceDecision.Stale(claim(33, "old"), fence(34, "new"));

        JsonNode body = json(Problem.of(stale));

        assertThat(body.get("type").asText()).isEqualTo("urn:fencegate:problem:stale-token");
        assertThat(body.get("title").asText()).isNotBlank();
        assertThat(body.get("status").asInt()).isEqualTo(412);
        assertThat(body.get("detail").asText()).contains("33").contains("34").contains("/orders/7");
        assertThat(body.get("resource").asText()).isEqualTo("/orders/7");
        assertThat(body.get("token").isIntegralNumber()).isTrue();
        assertThat(body.get("token").asLong()).isEqualTo(33);
        assertThat(body.get("currentToken").asLong()).isEqualTo(34);
    }

    @Test
    void tokensNearTheTopOfTheRangeSurviveTheJsonExactly() throws IOException {
        FenceDecision stale = new FenceDecision.Stale(claim(Long.MAX_VALUE - 1, null), fence(Long.MAX_VALUE, null));

        JsonNode body = json(Problem.of(stale));

        assertThat(body.get("token").asLong()).isEqualTo(Long.MAX_VALUE - 1);
        assertThat(body.get("currentToken").asLong()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aReusedRefusalNamesBothHoldersAndHasItsOwnType() throws IOException {
        FenceDecision reused = new FenceDecision.Reused(claim(9, "b"), fence(9, "a"));
        FenceDecision stale = new FenceDecision.Stale(claim(8, "b"), fence(9, "a"));

        JsonNode body = json(Problem.of(reused));

        assertThat(body.get("status").asInt()).isEqualTo(412);
        assertThat(body.get("holder").asText()).isEqualTo("b");
        assertThat(body.get("currentHolder").asText()).isEqualTo("a");
        assertThat(body.get("resource").asText()).isEqualTo("/orders/7");
        assertThat(body.get("token").asLong()).isEqualTo(9);
        assertThat(body.get("currentToken").asLong()).isEqualTo(9);
        assertThat(body.get("type").asText()).isNotEqualTo(json(Problem.of(stale)).get("type").asText());
        assertThat(body.get("detail").asText()).contains("granted to a, not b");
    }

    @Test
    void aMissingTokenIs428NamingTheHeader() throws IOException {
        JsonNode body = json(Problem.of(new FenceDecision.MissingToken()));

        assertThat(body.get("status").asInt()).isEqualTo(428);
        assertThat(body.get("detail").asText()).contains(HeaderNames.FENCING_TOKEN);
        assertThat(body.has("token")).isFalse();
    }

    @Test
    void malformedHeadersAre400AndCarryTheParsersDetail() throws IOException {
        JsonNode token = json(Problem.of(new FenceDecision.MalformedToken("expected ASCII digits only")));
        JsonNode holder = json(Problem.of(new FenceDecision.MalformedHolder("expected visible ASCII only")));

        assertThat(token.get("status").asInt()).isEqualTo(400);
        assertThat(token.get("detail").asText()).isEqualTo("Fencing-Token: expected ASCII digits only");
        assertThat(holder.get("status").asInt()).isEqualTo(400);
        assertThat(holder.get("detail").asText()).isEqualTo("Fencing-Holder: expected visible ASCII only");
        assertThat(token.get("type").asText()).isNotEqualTo(holder.get("type").asText());
    }

    @Test
    void anUnavailableStoreIs503WithTheStoresState() throws IOException {
        JsonNode body = json(Problem.of(new FenceDecision.Unavailable("fence store did not answer within 2000 ms")));

        assertThat(body.get("status").asInt()).isEqualTo(503);
        assertThat(body.get("type").asText()).isEqualTo("urn:fencegate:problem:fence-unavailable");
        assertThat(body.get("detail").asText()).isEqualTo("fence store did not answer within 2000 ms");
    }

    @Test
    void anAdmittedWriteHasNoProblemBody() {
        FenceDecision admitted = new FenceDecision.Admitted(claim(1, null), Optional.empty());

        assertThatThrownBy(() -> Problem.of(admitted)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPlainProblemHasOnlyTheStandardMembers() throws IOException {
        JsonNode body = json(Problem.of(Outcome.AMBIGUOUS_PATH, "request target refused: a dot segment ('..')"));

        assertThat(body.get("status").asInt()).isEqualTo(400);
        assertThat(body.get("detail").asText()).isEqualTo("request target refused: a dot segment ('..')");
        assertThat(body.properties()).extracting(java.util.Map.Entry::getKey)
                .containsExactly("type", "title", "status", "detail");
    }

    private static JsonNode json(Problem problem) throws IOException {
        return JSON.readTree(problem.toJson());
    }

    private static FenceClaim claim(long token, String holder) {
        return new FenceClaim(RESOURCE, new FencingToken(token), Optional.ofNullable(holder).map(Holder::new));
    }

    private static Fence fence(long token, String holder) {
        return new Fence(RESOURCE, new FencingToken(token), Optional.ofNullable(holder).map(Holder::new));
    }
}
