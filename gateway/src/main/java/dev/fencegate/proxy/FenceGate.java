package dev.fencegate.proxy;

import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import java.util.concurrent.CompletableFuture;

/** What the client-facing side asks of the fence: a decision per claim, and word when an admitted write is done. */
interface FenceGate {

    CompletableFuture<FenceDecision> check(FenceClaim claim);

    void finished(FenceClaim claim, boolean outcomeKnown);

    static FenceGate of(FenceChecker checker) {
        return new FenceGate() {
            @Override
            public CompletableFuture<FenceDecision> check(FenceClaim claim) {
                return checker.check(claim);
            }

            @Override
            public void finished(FenceClaim claim, boolean outcomeKnown) {
                checker.finished(claim, outcomeKnown);
            }
        };
    }
}
