package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.SeededCases;
import dev.fencegate.testing.SeededCases.Gen;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The rule for any fence and claim, and the method classifier for any method name. */
class FencePolicyProperties {

    private static final ResourceKey KEY = new ResourceKey("/r");
    private static final List<String> KNOWN = List.of("PUT", "POST", "PATCH", "DELETE", "GET", "HEAD", "OPTIONS");
    private static final int RULE_CASES = 3000;

    record RuleCase(long fenceToken, Optional<Holder> fenceHolder, long claimToken, Optional<Holder> claimHolder) {
        static RuleCase generate(Gen gen) {
            return new RuleCase(token(gen), holder(gen), token(gen), holder(gen));
        }
    }

    static Stream<Named<RuleCase>> ruleCases() {
        return SeededCases.cases("fence-rule", RULE_CASES, RuleCase::generate);
    }

    @ParameterizedTest
    @MethodSource("ruleCases")
    void admittedExactlyWhenAtOrAboveTheFenceAndNotGrantedToAnother(RuleCase c) {
        Fence fence = new Fence(KEY, new FencingToken(c.fenceToken()), c.fenceHolder());
        FenceClaim claim = new FenceClaim(KEY, new FencingToken(c.claimToken()), c.claimHolder());
        boolean twoNamedHolders = c.fenceHolder().isPresent() && c.claimHolder().isPresent()
                && !c.fenceHolder().equals(c.claimHolder());

        FenceDecision decision = FencePolicy.decide(Optional.of(fence), claim);

        long fenceToken = c.fenceToken();
        long claimToken = c.claimToken();
        assertThat(decision.kind() == FenceDecision.Kind.ADMITTED)
                .isEqualTo(claimToken >= fenceToken && !(claimToken == fenceToken && twoNamedHolders));
        assertThat(decision.kind() == FenceDecision.Kind.STALE).isEqualTo(claimToken < fenceToken);
        assertThat(decision.kind() == FenceDecision.Kind.REUSED).isEqualTo(claimToken == fenceToken && twoNamedHolders);
        if (decision instanceof FenceDecision.Admitted admitted) {
            assertThat(admitted.claim().token().value()).isGreaterThanOrEqualTo(fenceToken);
            assertThat(admitted.raised()).isEqualTo(claimToken > fenceToken);
        }
    }

    /** The cases above reach every decision often enough to mean something. */
    @Test
    void theRuleCasesCoverAdmittedStaleAndReused() {
        Map<FenceDecision.Kind, Integer> counts = new EnumMap<>(FenceDecision.Kind.class);
        for (RuleCase c : SeededCases.values("fence-rule", RULE_CASES, RuleCase::generate)) {
            FenceDecision decision = FencePolicy.decide(Optional.of(new Fence(KEY, new FencingToken(c.fenceToken()), c.fenceHolder())),
                    new FenceClaim(KEY, new FencingToken(c.claimToken()), c.claimHolder()));
            counts.merge(decision.kind(), 1, Integer::sum);
        }
        assertThat(counts.getOrDefault(FenceDecision.Kind.ADMITTED, 0)).as("admitted").isGreaterThan(RULE_CASES / 10);
        assertThat(counts.getOrDefault(FenceDecision.Kind.STALE, 0)).as("stale").isGreaterThan(RULE_CASES / 10);
        assertThat(counts.getOrDefault(FenceDecision.Kind.REUSED, 0)).as("reused").isGreaterThan(RULE_CASES / 100);
    }

    static Stream<Named<RuleCase>> claimsWithNoFence() {
        return SeededCases.cases("no-fence", 1000, RuleCase::generate);
    }

    @ParameterizedTest
    @MethodSource("claimsWithNoFence")
    void withNoFenceEveryClaimIsAdmittedAndRaises(RuleCase c) {
        FenceDecision decision = FencePolicy.decide(Optional.empty(), new FenceClaim(KEY, new FencingToken(c.claimToken()), c.claimHolder()));

        assertThat(decision).isInstanceOfSatisfying(FenceDecision.Admitted.class, admitted -> assertThat(admitted.raised()).isTrue());
    }

    /** Tokens cluster so that equal and adjacent pairs are common, and reach the top of the range. */
    private static long token(Gen gen) {
        return switch (gen.intBetween(0, 2)) {
            case 0 -> gen.longBetween(1, 4);
            case 1 -> gen.longBetween(Long.MAX_VALUE - 3, Long.MAX_VALUE);
            default -> gen.longBetween(1, Long.MAX_VALUE);
        };
    }

    private static Optional<Holder> holder(Gen gen) {
        return gen.chance(0.7) ? Optional.of(new Holder(gen.pick("a", "b", "c"))) : Optional.empty();
    }

    @Test
    void theFourWritingMethodsAreWrites() {
        for (String method : new String[] {"PUT", "POST", "PATCH", "DELETE"}) {
            assertThat(WriteClassifier.classify(method)).as(method).isEqualTo(WriteClassifier.Kind.WRITE);
        }
    }

    @Test
    void theThreeSafeMethodsAreReads() {
        for (String method : new String[] {"GET", "HEAD", "OPTIONS"}) {
            assertThat(WriteClassifier.classify(method)).as(method).isEqualTo(WriteClassifier.Kind.READ);
        }
    }

    @Test
    void namedOthersAreRefused() {
        for (String method : new String[] {"CONNECT", "TRACE", "put", "Get", "PROPFIND", "MKCOL", "", "PUT "}) {
            assertThat(WriteClassifier.classify(method)).as("'%s'", method).isEqualTo(WriteClassifier.Kind.REFUSED);
        }
    }

    static Stream<Named<String>> otherMethods() {
        return SeededCases.cases("other-methods", 1000, FencePolicyProperties::otherMethod);
    }

    @ParameterizedTest
    @MethodSource("otherMethods")
    void everyOtherMethodIsRefused(String method) {
        assertThat(WriteClassifier.classify(method)).isEqualTo(WriteClassifier.Kind.REFUSED);
    }

    /** Method-like names, often one letter away from (or a case variant of) a known method. */
    private static String otherMethod(Gen gen) {
        while (true) {
            String known = gen.pick(KNOWN);
            String method = switch (gen.intBetween(0, 2)) {
                case 0 -> gen.string(LETTERS, 0, 8);
                case 1 -> {
                    int at = gen.intBetween(0, known.length() - 1);
                    yield known.substring(0, at) + (char) gen.intBetween('A', 'z') + known.substring(at + 1);
                }
                default -> known + gen.pick(" ", "\t", "_");
            };
            if (!KNOWN.contains(method)) {
                return method;
            }
        }
    }

    private static final char[] LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
}
