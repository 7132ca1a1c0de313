package dev.fencegate.proxy;

import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/** What the client-facing side asks of the fence: a decision per claim, and word when an admitted write is done. */
interface FenceGate {

    /** A decision the store had to be asked for is completed on {@code answerOn}, the caller's event loop. */
    CompletableFuture<FenceDecision> check(FenceClaim claim, Executor answerOn);

    void finished(FenceClaim claim, boolean outcomeKnown);

    /**
     * The first of several claims of one request that the fences as they stand refuse, looked up
     * before any of them is checked (which raises and names fences), or Unavailable; empty when
     * none is refused. Completes off the event loop.
     */
    CompletableFuture<Optional<FenceDecision>> firstRefusal(List<FenceClaim> claims);

    static FenceGate of(FenceChecker checker) {
        return new FenceGate() {
            @Override
            public CompletableFuture<FenceDecision> check(FenceClaim claim, Executor answerOn) {
                return checker.check(claim, answerOn);
            }

            @Override
            public void finished(FenceClaim claim, boolean outcomeKnown) {
                checker.finished(claim, outcomeKnown);
            }

            @Override
            public CompletableFuture<Optional<FenceDecision>> firstRefusal(List<FenceClaim> claims) {
                return checker.firstRefusal(claims);
            }
        };
    }
}
