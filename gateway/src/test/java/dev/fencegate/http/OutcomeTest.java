package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.ResourceKey;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The one table from what happened to status, problem type and metric tag. */
class OutcomeTest {

    private static final ResourceKey KEY = new ResourceKey("/k");

    @ParameterizedTest
    @EnumSource(FenceDecision.Kind.class)
    void everyDecisionKindHasAnOutcomeAndOnlyAdmittedIsForwarded(FenceDecision.Kind kind) {
        FenceDecision decision = example(kind);
        assertThat(decision.kind()).isEqualTo(kind);

        Outcome outcome = Outcome.of(decision);

        assertThat(outcome).isNotNull();
        assertThat(outcome == Outcome.FORWARDED).isEqualTo(kind == FenceDecision.Kind.ADMITTED);
    }

    @Test
    void theFenceRefusalsMapToTheirOwnOutcomes() {
        Map<FenceDecision.Kind, Outcome> expected = new EnumMap<>(Map.of(
                FenceDecision.Kind.ADMITTED, Outcome.FORWARDED,
                FenceDecision.Kind.STALE, Outcome.STALE_TOKEN,
                FenceDecision.Kind.REUSED, Outcome.REUSED_TOKEN,
                FenceDecision.Kind.DRAINING, Outcome.FENCE_DRAINING,
                FenceDecision.Kind.MISSING_TOKEN, Outcome.MISSING_TOKEN,
                FenceDecision.Kind.MALFORMED_TOKEN, Outcome.MALFORMED_TOKEN,
                FenceDecision.Kind.MALFORMED_HOLDER, Outcome.MALFORMED_HOLDER,
                FenceDecision.Kind.UNAVAILABLE, Outcome.FENCE_UNAVAILABLE));
        assertThat(expected).containsOnlyKeys(FenceDecision.Kind.values());

        expected.forEach((kind, outcome) -> assertThat(Outcome.of(example(kind))).as("%s", kind).isEqualTo(outcome));
    }

    @ParameterizedTest
    @EnumSource(value = Outcome.class, names = "FORWARDED", mode = EnumSource.Mode.EXCLUDE)
    void everyOutcomeTheGatewayAnswersIsAClientOrServerError(Outcome outcome) {
        assertThat(outcome.status()).isBetween(400, 599);
        assertThat(outcome.title()).isNotBlank();
        assertThat(outcome.tag()).matches("[a-z]+(-[a-z]+)*");
    }

    @Test
    void forwardedHasNoStatusOfItsOwn() {
        assertThat(Outcome.FORWARDED.status()).isZero();
    }

    @Test
    void problemTypesAndMetricTagsAreDistinct() {
        assertThat(Arrays.stream(Outcome.values()).map(Outcome::problemType)).doesNotHaveDuplicates();
        assertThat(Arrays.stream(Outcome.values()).map(Outcome::tag)).doesNotHaveDuplicates();
        assertThat(Arrays.stream(Outcome.values()).map(Outcome::problemType)).allMatch(t -> t.startsWith("urn:fencegate:problem:"));
    }

    private static FenceDecision example(FenceDecision.Kind kind) {
        FenceClaim claim = new FenceClaim(KEY, new FencingToken(5), Optional.of(new Holder("b")));
        Fence fence = new Fence(KEY, new FencingToken(5), Optional.of(new Holder("a")));
        return switch (kind) {
            case ADMITTED -> new FenceDecision.Admitted(claim, Optional.empty());
            case STALE -> new FenceDecision.Stale(claim, new Fence(KEY, new FencingToken(6), Optional.empty()));
            case REUSED -> new FenceDecision.Reused(claim, fence);
            case DRAINING -> new FenceDecision.Draining(claim, fence);
            case MISSING_TOKEN -> new FenceDecision.MissingToken();
            case MALFORMED_TOKEN -> new FenceDecision.MalformedToken("expected digits");
            case MALFORMED_HOLDER -> new FenceDecision.MalformedHolder("expected visible ASCII");
            case UNAVAILABLE -> new FenceDecision.Unavailable("down");
        };
    }
}
