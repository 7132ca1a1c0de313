package dev.fencegate.fence;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs fence admissions on a bounded set of threads, never on an event loop, and always completes
 * with a decision: a store that cannot answer in time yields {@link FenceDecision.Unavailable}, so
 * an unchecked write never passes. Claims waiting in the queue are judged together, one store
 * round trip per batch, and batches take turns: one starts while another runs only once that one
 * has run longer than a bound, so at saturation the claims that arrive during a batch make the
 * next one (bigger batches cost the store and this process less per claim) while a slow or stuck
 * batch never holds the others back for longer than the bound. A claim that must wait for
 * lower-token writes still in flight is retried, without holding a thread, until they are done or
 * the drain bound passes. A claim at a fence this instance holds is answered at once, on the
 * caller's thread, without a store trip.
 */
public final class FenceChecker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FenceChecker.class);

    private static final long FIRST_RETRY_MILLIS = 2;
    private static final long MAX_RETRY_MILLIS = 50;
    private static final int MAX_BATCH = 64;
    private static final String SHUTTING_DOWN = "gateway shutting down";

    private record Pending(FenceClaim claim, CompletableFuture<FenceDecision> answer, long deadlineNanos, Executor answerOn) {
    }

    private final FenceAdmission admission;
    private final InstanceFences fences;
    private final BlockingQueue<Pending> queue;
    private final List<Thread> workers = new ArrayList<>();
    private final Duration timeout;
    private final Duration drainTimeout;
    private final Duration unknownOutcomeHold;
    private final Supplier<Optional<String>> writesRefused;
    private final Supplier<String> poolState;
    private final long overlapAfterNanos;
    private final ReentrantLock turns = new ReentrantLock();
    /** Signalled when the thread waiting on the queue stops waiting. */
    private final Condition takerDone = turns.newCondition();
    /**
     * Never signalled: a timed wait for the running batch to overrun, apart from {@link #takerDone}
     * so that a batch starting does not wake the threads that only watch for an overrun.
     */
    private final Condition overrun = turns.newCondition();
    /** Whether a thread waits on the queue, batches being judged, when the last of them started; guarded by {@link #turns}. */
    private boolean taking;
    private int running;
    private long lastStartNanos;
    /** Runs the looks that a request of several keys asks for before any of them is checked. */
    private final ThreadPoolExecutor looks;
    private volatile boolean closed;

    /**
     * @param threads            at most this many batches at once, each on a thread of its own
     * @param overlapAfter       how long a batch runs before another may start beside it
     * @param unknownOutcomeHold how long a write whose outcome at the store is unknown still counts as in flight
     * @param writesRefused      a reason to refuse every write (unsafe durability, another naming), or empty;
     *                           asked as each claim arrives and as each batch starts
     */
    public FenceChecker(FenceAdmission admission, InstanceFences fences, int threads, Duration overlapAfter, int queueLength,
                        Duration timeout, Duration drainTimeout, Duration unknownOutcomeHold,
                        Supplier<Optional<String>> writesRefused, Supplier<String> poolState) {
        this.admission = admission;
        this.fences = fences;
        this.queue = new ArrayBlockingQueue<>(queueLength);
        this.timeout = timeout;
        this.drainTimeout = drainTimeout;
        this.unknownOutcomeHold = unknownOutcomeHold;
        this.writesRefused = writesRefused;
        this.poolState = poolState;
        this.overlapAfterNanos = overlapAfter.toNanos();
        this.looks = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queueLength), runnable -> {
            Thread look = new Thread(runnable, "fence-look");
            look.setDaemon(true);
            return look;
        });
        for (int i = 1; i <= threads; i++) {
            Thread worker = new Thread(this::work, "fence-check-" + i);
            worker.setDaemon(true);
            worker.start();
            workers.add(worker);
        }
    }

    /**
     * Completes with the decision for {@code claim}. When it is {@link FenceDecision.Admitted},
     * the caller must call {@link #finished} once the write is done with the store.
     */
    public CompletableFuture<FenceDecision> check(FenceClaim claim) {
        return check(claim, Runnable::run);
    }

    /**
     * As {@link #check(FenceClaim)}, with a decision from the store completed on {@code answerOn}
     * (the caller's event loop): the decisions of one batch for one executor are handed to it in
     * one task, so a batch wakes each event loop once, not once per claim.
     */
    public CompletableFuture<FenceDecision> check(FenceClaim claim, Executor answerOn) {
        Optional<String> refused = writesRefused.get();
        if (refused.isPresent()) {
            return CompletableFuture.completedFuture(new FenceDecision.Unavailable(refused.get()));
        }
        // The common case first: it checks what this instance remembers itself.
        Optional<FenceDecision> held = admission.admitHeld(claim);
        if (held.isPresent()) {
            return CompletableFuture.completedFuture(held.get());
        }
        Optional<FenceDecision> stale = admission.knownStale(claim);
        if (stale.isPresent()) {
            return CompletableFuture.completedFuture(stale.get());
        }
        fences.enter(claim);
        long drainDeadline = System.nanoTime() + drainTimeout.toNanos();
        return attempt(claim, drainDeadline, FIRST_RETRY_MILLIS, answerOn).whenComplete((decision, failure) -> {
            if (!(decision instanceof FenceDecision.Admitted)) {
                fences.exit(claim);
            }
        });
    }

    /**
     * Completes with the first of {@code claims}, the keys of one request, that the fences as they
     * stand refuse ({@link FenceAdmission#firstRefusal}), or with Unavailable when they cannot be
     * read in time; empty when none is refused. Asked before any of the keys is checked, so that a
     * request refused for one key raises and names no fence of another. Raises nothing itself.
     */
    public CompletableFuture<Optional<FenceDecision>> firstRefusal(List<FenceClaim> claims) {
        Optional<String> refused = writesRefused.get();
        if (refused.isPresent()) {
            return CompletableFuture.completedFuture(Optional.of(new FenceDecision.Unavailable(refused.get())));
        }
        CompletableFuture<Optional<FenceDecision>> answer = new CompletableFuture<>();
        try {
            looks.execute(() -> {
                try {
                    answer.complete(admission.firstRefusal(claims));
                } catch (RuntimeException e) {
                    answer.complete(Optional.of(new FenceDecision.Unavailable("fences could not be read: " + e.getMessage())));
                }
            });
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(Optional.of(new FenceDecision.Unavailable(
                    closed ? SHUTTING_DOWN : "fence looks are queued beyond " + looks.getQueue().size() + " waiting")));
        }
        return answer.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionally(failure -> Optional.of(new FenceDecision.Unavailable("fences of " + claims.size()
                        + " keys could not be read within " + timeout.toMillis() + " ms")));
    }

    private CompletableFuture<FenceDecision> attempt(FenceClaim claim, long drainDeadline, long retryMillis, Executor answerOn) {
        CompletableFuture<FenceDecision> answer = new CompletableFuture<>();
        if (closed) {
            // A claim tried again while it waited for a lower write to drain, after the checker closed.
            return CompletableFuture.completedFuture(new FenceDecision.Unavailable(SHUTTING_DOWN));
        }
        Pending pending = new Pending(claim, answer, System.nanoTime() + timeout.toNanos(), answerOn);
        if (!queue.offer(pending)) {
            return CompletableFuture.completedFuture(new FenceDecision.Unavailable(
                    "fence checks are queued beyond " + queue.size() + " waiting (" + poolState.get() + ")"));
        }
        if (closed && queue.remove(pending)) {
            // Offered after close() emptied the queue: no worker takes it now.
            answer.complete(new FenceDecision.Unavailable(SHUTTING_DOWN));
        }
        return answer.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionally(failure -> new FenceDecision.Unavailable(describe(claim, failure)))
                .thenCompose(result -> {
                    if (result instanceof FenceDecision.Draining && System.nanoTime() + retryMillis * 1_000_000 < drainDeadline) {
                        // On the timer's own thread: it only queues the claim again. The default, the
                        // common pool, starts a thread per task where it has one thread (two cores or fewer).
                        Executor later = CompletableFuture.delayedExecutor(retryMillis, TimeUnit.MILLISECONDS, Runnable::run);
                        return CompletableFuture.supplyAsync(() -> null, later)
                                .thenCompose(ignored -> attempt(claim, drainDeadline, Math.min(retryMillis * 2, MAX_RETRY_MILLIS), answerOn));
                    }
                    return CompletableFuture.completedFuture(result);
                });
    }

    /**
     * Once it is this thread's turn, takes what is queued, up to a batch, and judges it in one
     * trip; never waits to fill a batch, only for the batch before to end or to overrun. One
     * thread at a time waits on the queue, so claims are taken in the order they came.
     */
    private void work() {
        List<Pending> batch = new ArrayList<>(MAX_BATCH);
        List<FenceClaim> claims = new ArrayList<>(MAX_BATCH);
        while (!closed) {
            try {
                takeTurn(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            try {
                queue.drainTo(batch, MAX_BATCH - 1);
                long now = System.nanoTime();
                // Waited in the queue past the bound: the caller has already been answered 503.
                batch.removeIf(pending -> now - pending.deadlineNanos() > 0 || pending.answer().isDone());
                // Checked again as the batch starts, not only as a claim arrives: a claim retried while
                // lower-token writes drain, or one that waited in the queue, may outlive the reason to serve it.
                Optional<String> refused = writesRefused.get();
                if (refused.isPresent()) {
                    batch.forEach(pending -> pending.answer().complete(new FenceDecision.Unavailable(refused.get())));
                    batch.clear();
                }
                batch.forEach(pending -> claims.add(pending.claim()));
                if (!claims.isEmpty()) {
                    answer(batch, admission.attemptAll(claims));
                }
            } catch (RuntimeException | Error e) {
                // An Error too (a stack overflow, memory short for a moment): the batch is refused,
                // and the thread lives on to judge the next, or no claim needing the store would be taken again.
                if (e instanceof Error) {
                    log.error("a fence-check batch of {} claim(s) failed; refusing it", batch.size(), e);
                }
                batch.forEach(pending -> pending.answer().completeExceptionally(e));
            } finally {
                endTurn();
            }
            batch.clear();
            claims.clear();
        }
    }

    /**
     * Waits until no other thread waits on the queue and no batch runs, or the one started last
     * has run for longer than the overlap bound; then waits for a claim and starts a batch with it.
     * A thread that ends a batch takes the next turn itself, on the CPU it already has; the others
     * wake only to see whether the running batch has overrun, or when a batch starts after an idle wait.
     */
    private void takeTurn(List<Pending> batch) throws InterruptedException {
        turns.lock();
        try {
            while (taking || running > 0 && System.nanoTime() - lastStartNanos < overlapAfterNanos) {
                if (taking) {
                    takerDone.await();
                } else {
                    overrun.awaitNanos(lastStartNanos + overlapAfterNanos - System.nanoTime());
                }
            }
            taking = true;
        } finally {
            turns.unlock();
        }
        Pending first = null;
        try {
            first = queue.take();
        } finally {
            turns.lock();
            try {
                taking = false;
                if (first != null) {
                    running++;
                    lastStartNanos = System.nanoTime();
                }
                takerDone.signalAll();
            } finally {
                turns.unlock();
            }
        }
        batch.add(first);
    }

    private void endTurn() {
        turns.lock();
        try {
            running--;
        } finally {
            turns.unlock();
        }
    }

    /** One task per executor for the batch's answers. */
    private static void answer(List<Pending> batch, List<FenceDecision> decisions) {
        Map<Executor, List<Runnable>> byExecutor = new IdentityHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            Pending pending = batch.get(i);
            FenceDecision decision = decisions.get(i) != null ? decisions.get(i)
                    : new FenceDecision.Unavailable("the fence store gave no decision for " + pending.claim().resource());
            byExecutor.computeIfAbsent(pending.answerOn(), executor -> new ArrayList<>())
                    .add(() -> pending.answer().complete(decision));
        }
        byExecutor.forEach((executor, completions) -> {
            try {
                executor.execute(() -> completions.forEach(Runnable::run));
            } catch (RejectedExecutionException e) {
                // The event loop is shutting down: answer here, so the caller's future never hangs.
                completions.forEach(Runnable::run);
            }
        });
    }

    /**
     * Called once for every admitted claim when its write is done with the store. When the
     * outcome is unknown (a timeout or reset after bytes went out) the store may still apply the
     * write, so it keeps counting as in flight for a while longer.
     */
    public void finished(FenceClaim claim, boolean outcomeKnown) {
        if (outcomeKnown) {
            fences.exit(claim);
        } else {
            CompletableFuture.delayedExecutor(unknownOutcomeHold.toMillis(), TimeUnit.MILLISECONDS, Runnable::run)
                    .execute(() -> fences.exit(claim));
        }
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
        closed = true;
        looks.shutdownNow();
        workers.forEach(Thread::interrupt);
        for (Thread worker : workers) {
            try {
                worker.join(timeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        Pending left;
        while ((left = queue.poll()) != null) {
            left.answer().complete(new FenceDecision.Unavailable(SHUTTING_DOWN));
        }
    }
}
