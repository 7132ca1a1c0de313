package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/** The rule for any fence and claim, and the method classifier for any method name. */
class FencePolicyProperties {

    private static final ResourceKey KEY = new ResourceKey("/r");
    private static final List<String> KNOWN = List.of("PUT", "POST", "PATCH", "DELETE", "GET", "HEAD", "OPTIONS");

    @Property(tries = 3000)
    void admittedExactlyWhenAtOrAboveTheFenceAndNotGrantedToAnother(
            @ForAll("tokens") long fenceToken, @ForAll("holders") Optional<Holder> fenceHolder,
            @ForAll("tokens") long claimToken, @ForAll("holders") Optional<Holder> claimHolder) {
        Fence fence = new Fence(KEY, new FencingToken(fenceToken), fenceHolder);
        FenceClaim claim = new FenceClaim(KEY, new FencingToken(claimToken), claimHolder);
        boolean twoNamedHolders = fenceHolder.isPresent() && claimHolder.isPresent() && !fenceHolder.equals(claimHolder);

        FenceDecision decision = FencePolicy.decide(Optional.of(fence), claim);
        Statistics.label("decision").collect(decision.kind());
        Statistics.label("decision").coverage(coverage -> {
            coverage.check(FenceDecision.Kind.ADMITTED).percentage(p -> p > 10);
            coverage.check(FenceDecision.Kind.STALE).percentage(p -> p > 10);
            coverage.check(FenceDecision.Kind.REUSED).percentage(p -> p > 1);
        });

        assertThat(decision.kind() == FenceDecision.Kind.ADMITTED)
                .isEqualTo(claimToken >= fenceToken && !(claimToken == fenceToken && twoNamedHolders));
        assertThat(decision.kind() == FenceDecision.Kind.STALE).isEqualTo(claimToken < fenceToken);
        assertThat(decision.kind() == FenceDecision.Kind.REUSED).isEqualTo(claimToken == fenceToken && twoNamedHolders);
        if (decision instanceof FenceDecision.Admitted admitted) {
            assertThat(admitted.claim().token().value()).isGreaterThanOrEqualTo(fenceToken);
            assertThat(admitted.raised()).isEqualTo(claimToken > fenceToken);
        }
    }

    @Property
    void withNoFenceEveryClaimIsAdmittedAndRaises(@ForAll("tokens") long claimToken, @ForAll("holders") Optional<Holder> holder) {
        FenceDecision decision = FencePolicy.decide(Optional.empty(), new FenceClaim(KEY, new FencingToken(claimToken), holder));

        assertThat(decision).isInstanceOfSatisfying(FenceDecision.Admitted.class, admitted -> assertThat(admitted.raised()).isTrue());
    }

    /** Tokens cluster so that equal and adjacent pairs are common, and reach the top of the range. */
    @Provide
    Arbitrary<Long> tokens() {
        return Arbitraries.oneOf(
                Arbitraries.longs().between(1, 4),
                Arbitraries.longs().between(Long.MAX_VALUE - 3, Long.MAX_VALUE),
                Arbitraries.longs().between(1, Long.MAX_VALUE));
    }

    @Provide
    Arbitrary<Optional<Holder>> holders() {
        return Arbitraries.of("a", "b", "c").map(Holder::new).optional(0.7);
    }

    @Example
    void theFourWritingMethodsAreWrites() {
        for (String method : new String[] {"PUT", "POST", "PATCH", "DELETE"}) {
            assertThat(WriteClassifier.classify(method)).as(method).isEqualTo(WriteClassifier.Kind.WRITE);
        }
    }

    @Example
    void theThreeSafeMethodsAreReads() {
        for (String method : new String[] {"GET", "HEAD", "OPTIONS"}) {
            assertThat(WriteClassifier.classify(method)).as(method).isEqualTo(WriteClassifier.Kind.READ);
        }
    }

    @Example
    void namedOthersAreRefused() {
        for (String method : new String[] {"CONNECT", "TRACE", "put", "Get", "PROPFIND", "MKCOL", "", "PUT "}) {
            assertThat(WriteClassifier.classify(method)).as("'%s'", method).isEqualTo(WriteClassifier.Kind.REFUSED);
        }
    }

    @Property
    void everyOtherMethodIsRefused(@ForAll("otherMethods") String method) {
        assertThat(WriteClassifier.classify(method)).isEqualTo(WriteClassifier.Kind.REFUSED);
    }

    /** Method-like names, often one letter away from (or a case variant of) a known method. */
    @Provide
    Arbitrary<String> otherMethods() {
        Arbitrary<String> letters = Arbitraries.strings().withCharRange('A', 'Z').withCharRange('a', 'z').ofMaxLength(8);
        Arbitrary<String> nearMiss = Arbitraries.of(KNOWN).flatMap(known -> Arbitraries.integers().between(0, known.length() - 1)
                .flatMap(at -> Arbitraries.chars().range('A', 'z').map(c -> known.substring(0, at) + c + known.substring(at + 1))));
        Arbitrary<String> padded = Arbitraries.of(KNOWN).flatMap(known -> Arbitraries.of(" ", "\t", "_").map(pad -> known + pad));
        return Arbitraries.oneOf(letters, nearMiss, padded).filter(m -> !KNOWN.contains(m));
    }
}
