package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What the fence-check threads do when judging a batch fails in ways the store does not report. */
class FenceCheckerFailuresTest {

    private final InMemoryFenceStore memory = new InMemoryFenceStore();
    private final AtomicInteger errorsLeft = new AtomicInteger();
    private final AtomicInteger nullsLeft = new AtomicInteger();
    private final FenceStore store = new FenceStore() {
        @Override
        public FenceDecision admit(FenceClaim claim) {
            return memory.admit(claim);
        }

        @Override
        public List<FenceDecision> admitAll(List<FenceClaim> claims) {
            if (errorsLeft.getAndDecrement() > 0) {
                throw new StackOverflowError("injected");
            }
            List<FenceDecision> decisions = FenceStore.super.admitAll(claims);
            if (nullsLeft.getAndDecrement() > 0) {
                decisions.set(0, null);
            }
            return decisions;
        }

        @Override
        public Optional<Fence> read(ResourceKey resource) {
            return memory.read(resource);
        }
    };
    private final InstanceFences fences = new InstanceFences(RegistrationRows.NONE,
            new LeaseTiming(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(10)), System::nanoTime);

    private FenceChecker checker(int threads) {
        return new FenceChecker(new FenceAdmission(store, fences, new RememberedFences(100), claim -> { }), fences,
                threads, Duration.ofMillis(5), 64, Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(1),
                Optional::empty, () -> "pool");
    }

    private static FenceClaim claim(String resource, long token) {
        return new FenceClaim(new ResourceKey(resource), new FencingToken(token), Optional.empty());
    }

    /**
     * An Error (a stack overflow, memory short for a moment) thrown while a batch is judged refuses
     * that batch; the threads live on, so claims after it are judged once the store answers again.
     */
    @Test
    void anErrorInOneBatchRefusesItAndLaterClaimsAreStillJudged() throws Exception {
        errorsLeft.set(2); // one per worker thread
        try (FenceChecker checker = checker(2)) {
            FenceDecision first = checker.check(claim("/a", 1)).get(5, TimeUnit.SECONDS);
            assertThat(first).isInstanceOf(FenceDecision.Unavailable.class);
            FenceDecision second = checker.check(claim("/b", 1)).get(5, TimeUnit.SECONDS);
            assertThat(second).isInstanceOf(FenceDecision.Unavailable.class);
            // The store answers again now.
            FenceDecision later = checker.check(claim("/c", 1)).get(5, TimeUnit.SECONDS);
            assertThat(later).as("a healthy store's claim after an Error in an earlier batch")
                    .isInstanceOf(FenceDecision.Admitted.class);
        }
    }

    /** A store that hands back no decision for a claim: the caller gets a refusal, not nothing. */
    @Test
    void aClaimTheStoreGaveNoDecisionForIsRefused() throws Exception {
        nullsLeft.set(1);
        try (FenceChecker checker = checker(1)) {
            CompletableFuture<FenceDecision> answer = checker.check(claim("/n", 1));
            FenceDecision decision = answer.get(5, TimeUnit.SECONDS);
            assertThat(decision).isNotNull().isInstanceOf(FenceDecision.Unavailable.class);
        }
    }
}
