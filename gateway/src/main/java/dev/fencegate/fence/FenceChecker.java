package dev.fencegate.fence;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Runs blocking {@link FenceStore} calls on a bounded pool of threads, never on an event loop,
 * and turns every failure to answer in time into {@link FenceDecision.Unavailable}: the caller
 * gets a decision, never an exception, and an unchecked write never passes.
 */
public final class FenceChecker implements AutoCloseable {

    private final FenceStore store;
    private final ThreadPoolExecutor executor;
    private final Duration timeout;
    private final Supplier<String> poolState;

    public FenceChecker(FenceStore store, int threads, int queueLength, Duration timeout, Supplier<String> poolState) {
        this.store = store;
        this.timeout = timeout;
        this.poolState = poolState;
        AtomicInteger ids = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueLength), runnable -> {
                    Thread thread = new Thread(runnable, "fence-check-" + ids.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                }, new ThreadPoolExecutor.AbortPolicy());
    }

    /** Completes with the store's decision, or with Unavailable when it cannot be had in time. */
    public CompletableFuture<FenceDecision> check(FenceClaim claim) {
        long deadline = System.nanoTime() + timeout.toNanos();
        CompletableFuture<FenceDecision> decision;
        try {
            decision = CompletableFuture.supplyAsync(() -> admitBefore(deadline, claim), executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(new FenceDecision.Unavailable(
                    "fence checks are queued beyond " + executor.getQueue().size() + " waiting (" + poolState.get() + ")"));
        }
        return decision.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionally(failure -> new FenceDecision.Unavailable(describe(claim, failure)));
    }

    /**
     * Called once for every admitted claim when its write is done with the store. With
     * {@code outcomeKnown} false the store may still apply it (a timeout or reset after bytes went out).
     */
    public void finished(FenceClaim claim, boolean outcomeKnown) {
    }

    private FenceDecision admitBefore(long deadline, FenceClaim claim) {
        if (System.nanoTime() - deadline > 0) {
            // Waited in the queue past the bound: the caller has already been answered 503.
            throw new FenceStoreUnavailableException("fence check for " + claim.resource() + " expired in the queue");
        }
        return store.admit(claim);
    }

    private String describe(FenceClaim claim, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof TimeoutException) {
            return "fence store did not answer within " + timeout.toMillis() + " ms for " + claim.resource()
                    + " (" + poolState.get() + ")";
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
