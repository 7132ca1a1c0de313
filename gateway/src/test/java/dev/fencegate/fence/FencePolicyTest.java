package dev.fencegate.fence;

import static dev.fencegate.fence.FenceDecision.Kind.ADMITTED;
import static dev.fencegate.fence.FenceDecision.Kind.REUSED;
import static dev.fencegate.fence.FenceDecision.Kind.STALE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The fencing rule as a table: (current fence or none, claim) to decision. */
class FencePolicyTest {

    private static final ResourceKey KEY = new ResourceKey("/r");
    private static final long MAX = Long.MAX_VALUE;

    /** A null fence token means no fence yet; a null holder means none was named. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides(String label, Long fenceToken, String fenceHolder, long claimToken, String claimHolder,
                 FenceDecision.Kind expected) {
        Optional<Fence> current = Optional.ofNullable(fenceToken).map(t -> fence(t, fenceHolder));
        FenceClaim claim = claim(claimToken, claimHolder);

        FenceDecision decision = FencePolicy.decide(current, claim);

        assertThat(decision.kind()).isEqualTo(expected);
        switch (decision.kind()) {
            case ADMITTED -> assertThat((FenceDecision.Admitted) decision).isEqualTo(new FenceDecision.Admitted(claim,
                    current.map(Fence::token), SendWindow.OPEN, claimHolder != null && claimHolder.equals(fenceHolder)
                            && fenceToken == claimToken));
            case STALE -> assertThat(decision).isEqualTo(new FenceDecision.Stale(claim, current.orElseThrow()));
            case REUSED -> assertThat(decision).isEqualTo(new FenceDecision.Reused(claim, current.orElseThrow()));
            default -> throw new AssertionError("the policy only admits, or refuses as stale or reused: " + decision);
        }
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("no fence, token 1", null, null, 1L, null, ADMITTED),
                Arguments.of("no fence, named holder", null, null, 7L, "a", ADMITTED),
                Arguments.of("no fence, max token", null, null, MAX, "a", ADMITTED),
                Arguments.of("lower", 5L, null, 4L, null, STALE),
                Arguments.of("lower by a lot", 5L, "a", 1L, "a", STALE),
                Arguments.of("lower, same holder", 5L, "a", 4L, "a", STALE),
                Arguments.of("lower, different holder", 5L, "a", 4L, "b", STALE),
                Arguments.of("equal, no holders", 5L, null, 5L, null, ADMITTED),
                Arguments.of("equal, same holder", 5L, "a", 5L, "a", ADMITTED),
                Arguments.of("equal, different holders", 5L, "a", 5L, "b", REUSED),
                Arguments.of("equal, holders differing only in case", 5L, "a", 5L, "A", REUSED),
                Arguments.of("equal, stored holder absent, claim names one", 5L, null, 5L, "b", ADMITTED),
                Arguments.of("equal, stored holder present, claim names none", 5L, "a", 5L, null, ADMITTED),
                Arguments.of("higher", 5L, null, 6L, null, ADMITTED),
                Arguments.of("higher, different holder", 5L, "a", 6L, "b", ADMITTED),
                Arguments.of("higher, claim names no holder", 5L, "a", 6L, null, ADMITTED),
                Arguments.of("max fence, max claim, same holder", MAX, "a", MAX, "a", ADMITTED),
                Arguments.of("max fence, max claim, different holders", MAX, "a", MAX, "b", REUSED),
                Arguments.of("max fence, one below", MAX, null, MAX - 1, null, STALE),
                Arguments.of("max fence, token 1", MAX, null, 1L, null, STALE),
                Arguments.of("fence 1, max claim", 1L, "a", MAX, "b", ADMITTED),
                Arguments.of("one below max fence, max claim", MAX - 1, null, MAX, null, ADMITTED));
    }

    @Test
    void anAdmittedClaimRaisesWhenThereWasNoFence() {
        assertThat(admitted(Optional.empty(), claim(3, null)).raised()).isTrue();
    }

    @Test
    void anAdmittedClaimRaisesWhenItIsAboveTheFence() {
        assertThat(admitted(Optional.of(fence(3, null)), claim(4, null)).raised()).isTrue();
        assertThat(admitted(Optional.of(fence(1, null)), claim(MAX, null)).raised()).isTrue();
    }

    @Test
    void anAdmittedClaimAtTheFenceDoesNotRaise() {
        assertThat(admitted(Optional.of(fence(3, "a")), claim(3, "a")).raised()).isFalse();
        assertThat(admitted(Optional.of(fence(MAX, null)), claim(MAX, null)).raised()).isFalse();
    }

    private static FenceDecision.Admitted admitted(Optional<Fence> current, FenceClaim claim) {
        FenceDecision decision = FencePolicy.decide(current, claim);
        assertThat(decision).isInstanceOf(FenceDecision.Admitted.class);
        return (FenceDecision.Admitted) decision;
    }

    private static Fence fence(long token, String holder) {
        return new Fence(KEY, new FencingToken(token), Optional.ofNullable(holder).map(Holder::new));
    }

    private static FenceClaim claim(long token, String holder) {
        return new FenceClaim(KEY, new FencingToken(token), Optional.ofNullable(holder).map(Holder::new));
    }
}
