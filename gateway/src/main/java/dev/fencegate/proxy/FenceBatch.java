package dev.fencegate.proxy;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Has the fence judge several claims of one request (the keys of a DeleteObjects), one after
 * another, and answers once: every claim admitted, or the first refusal. Claims admitted before
 * a refusal are reported too, so that each can be finished.
 */
final class FenceBatch {

    /** The outcome: {@code refusal} is null when every claim was admitted. */
    record Result(List<FenceDecision.Admitted> admitted, FenceDecision refusal) {
        boolean allAdmitted() {
            return refusal == null;
        }
    }

    private FenceBatch() {
    }

    /** {@code onDecision} sees every decision, as it comes, on whichever thread the fence answered on. */
    static CompletableFuture<Result> check(List<FenceClaim> claims, Function<FenceClaim, CompletableFuture<FenceDecision>> fence,
                                           Consumer<FenceDecision> onDecision) {
        CompletableFuture<Result> result = new CompletableFuture<>();
        next(claims, 0, new ArrayList<>(), fence, onDecision, result);
        return result;
    }

    private static void next(List<FenceClaim> claims, int index, List<FenceDecision.Admitted> admitted,
                             Function<FenceClaim, CompletableFuture<FenceDecision>> fence, Consumer<FenceDecision> onDecision,
                             CompletableFuture<Result> result) {
        if (index == claims.size()) {
            result.complete(new Result(List.copyOf(admitted), null));
            return;
        }
        fence.apply(claims.get(index)).whenComplete((decision, failure) -> {
            FenceDecision judged = decision != null ? decision
                    : new FenceDecision.Unavailable("fence check failed: " + failure);
            onDecision.accept(judged);
            if (judged instanceof FenceDecision.Admitted accepted) {
                admitted.add(accepted);
                next(claims, index + 1, admitted, fence, onDecision, result);
            } else {
                result.complete(new Result(List.copyOf(admitted), judged));
            }
        });
    }
}
