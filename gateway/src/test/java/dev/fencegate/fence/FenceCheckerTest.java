package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How claims are gathered into batches, and how decisions come back to the event loop that asked. */
class FenceCheckerTest {

    /** An in-memory store that records each batch and holds the one holding {@code /first} until released. */
    private final InMemoryFenceStore memory = new InMemoryFenceStore();
    private final CountDownLatch firstJudging = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<List<String>> batches = new CopyOnWriteArrayList<>();
    /** How many more times {@code /draining} is answered as waiting for a lower write to drain. */
    private final AtomicInteger drainsLeft = new AtomicInteger();
    private final FenceStore store = new FenceStore() {
        @Override
        public FenceDecision admit(FenceClaim claim) {
            if (claim.resource().value().equals("/draining") && drainsLeft.getAndDecrement() > 0) {
                return new FenceDecision.Draining(claim, new Fence(claim.resource(), claim.token(), Optional.empty()));
            }
            return memory.admit(claim);
        }

        @Override
        public List<FenceDecision> admitAll(List<FenceClaim> claims) {
            batches.add(claims.stream().map(claim -> claim.resource().value()).toList());
            if (claims.stream().anyMatch(claim -> claim.resource().value().equals("/first"))) {
                firstJudging.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return FenceStore.super.admitAll(claims);
        }

        @Override
        public Optional<Fence> read(ResourceKey resource) {
            return memory.read(resource);
        }
    };
    private final InstanceFences fences = new InstanceFences(RegistrationRows.NONE,
            new LeaseTiming(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(10)), System::nanoTime);

    @AfterEach
    void releaseTheHeldBatch() {
        release.countDown();
    }

    /**
     * Each hand-back to an event loop wakes it: a batch's decisions for one loop go to it as one
     * task, and each is completed on that loop.
     */
    @Test
    void aBatchsDecisionsForOneEventLoopAreHandedToItInOneTask() throws Exception {
        ExecutorService loop = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "loop"));
        AtomicInteger tasks = new AtomicInteger();
        try (FenceChecker checker = checker(1, Duration.ZERO)) {
            Executor counted = task -> {
                tasks.incrementAndGet();
                loop.execute(task);
            };
            List<String> completedOn = new CopyOnWriteArrayList<>();
            List<CompletableFuture<?>> answers = new ArrayList<>();
            answers.add(checker.check(claim("/first"), counted).thenRun(() -> completedOn.add(Thread.currentThread().getName())));
            assertThat(firstJudging.await(5, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 10; i++) {
                answers.add(checker.check(claim("/queued/" + i), counted)
                        .thenRun(() -> completedOn.add(Thread.currentThread().getName())));
            }
            release.countDown();
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);

            assertThat(tasks.get()).isEqualTo(2);
            assertThat(completedOn).hasSize(11).containsOnly("loop");
        } finally {
            loop.shutdownNow();
        }
    }

    /**
     * With a thread free, claims that arrive while a batch runs still wait for it (it has not run
     * past the overlap bound) and then go to the store together, as one batch.
     */
    @Test
    void claimsThatArriveWhileABatchRunsGoTogetherInTheNextOne() throws Exception {
        try (FenceChecker checker = checker(2, Duration.ofSeconds(10))) {
            CompletableFuture<FenceDecision> first = checker.check(claim("/first"));
            assertThat(firstJudging.await(5, TimeUnit.SECONDS)).isTrue();
            List<CompletableFuture<FenceDecision>> queued = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                queued.add(checker.check(claim("/queued/" + i)));
            }
            // The second thread is free all along; given time, it would have taken a claim.
            Thread.sleep(300);
            assertThat(batches).hasSize(1);
            release.countDown();
            CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);

            assertThat(first.get(5, TimeUnit.SECONDS)).isInstanceOf(FenceDecision.Admitted.class);
            assertThat(queued).allSatisfy(answer -> assertThat(answer.get()).isInstanceOf(FenceDecision.Admitted.class));
            assertThat(batches).containsExactly(List.of("/first"),
                    List.of("/queued/0", "/queued/1", "/queued/2", "/queued/3", "/queued/4"));
        }
    }

    /** A batch stuck in the store holds the next one back only for the overlap bound, then another thread takes it. */
    @Test
    void aStuckBatchHoldsTheOthersBackOnlyForTheOverlapBound() throws Exception {
        try (FenceChecker checker = checker(2, Duration.ofMillis(200))) {
            CompletableFuture<FenceDecision> first = checker.check(claim("/first"));
            assertThat(firstJudging.await(5, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<FenceDecision> next = checker.check(claim("/next"));

            await().atMost(Duration.ofSeconds(5)).until(next::isDone);
            assertThat(next.get()).isInstanceOf(FenceDecision.Admitted.class);
            assertThat(first).isNotDone();
            assertThat(batches).containsExactly(List.of("/first"), List.of("/next"));
        }
    }

    /**
     * A reason to refuse writes that arises while claims wait (their instance's naming no longer
     * confirmed, say) stops them at their batch's start: none reaches the store.
     */
    @Test
    void claimsWaitingWhenWritesBecomeRefusedAreRefusedAsTheirBatchStarts() throws Exception {
        AtomicReference<Optional<String>> refusal = new AtomicReference<>(Optional.empty());
        try (FenceChecker checker = checker(1, Duration.ofSeconds(10), refusal::get)) {
            CompletableFuture<FenceDecision> first = checker.check(claim("/first"));
            assertThat(firstJudging.await(5, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<FenceDecision> waiting = checker.check(claim("/waiting"));
            refusal.set(Optional.of("writes refused: naming not confirmed"));
            release.countDown();

            assertThat(first.get(5, TimeUnit.SECONDS)).isInstanceOf(FenceDecision.Admitted.class);
            assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo(new FenceDecision.Unavailable("writes refused: naming not confirmed"));
            assertThat(batches).containsExactly(List.of("/first"));
        }
    }

    /**
     * A claim waiting for a lower write to drain is tried again on a timer, many times a second at
     * first; where the common pool has one thread (two cores or fewer), an asynchronous task would
     * start a thread of its own for every try.
     */
    @Test
    void aClaimWaitingForALowerWriteToDrainStartsNoThreadPerTry() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (FenceChecker checker = checker(1, Duration.ofSeconds(10))) {
            drainsLeft.set(12);
            long before = threads.getTotalStartedThreadCount();
            FenceDecision decision = checker.check(claim("/draining")).get(10, TimeUnit.SECONDS);
            long started = threads.getTotalStartedThreadCount() - before;

            assertThat(decision).isInstanceOf(FenceDecision.Admitted.class);
            assertThat(drainsLeft.get()).as("every try was made").isNegative();
            assertThat(started).as("threads started over 12 tries").isLessThan(3);
        }
    }

    /**
     * A claim still waiting for a lower write to drain when the checker closes is refused at its
     * next try as the gateway shutting down, not as a full queue, and not left in a queue no
     * worker takes any more until its timeout.
     */
    @Test
    void aClaimWaitingForALowerWriteToDrainIsRefusedAsShuttingDownOnceTheCheckerCloses() throws Exception {
        FenceChecker checker = checker(1, Duration.ofSeconds(10));
        drainsLeft.set(1_000);
        CompletableFuture<FenceDecision> answer = checker.check(claim("/draining"));
        await().atMost(Duration.ofSeconds(5)).until(() -> drainsLeft.get() < 995);

        checker.close();
        FenceDecision decision = answer.get(2, TimeUnit.SECONDS);

        assertThat(decision).isInstanceOfSatisfying(FenceDecision.Unavailable.class,
                unavailable -> assertThat(unavailable.detail()).isEqualTo("gateway shutting down"));
    }

    /**
     * A token below one this instance admitted is stale by what it remembers: refused on the
     * caller's thread with no statement to the store. A store that lost the fence meanwhile (a
     * failover to a replica that missed the commit) is not asked, so it neither admits the token
     * nor has the regression guard raise the fence back.
     */
    @Test
    void aTokenBelowOneThisInstanceAdmittedIsRefusedFromMemoryWithoutAskingTheStore() throws Exception {
        AtomicReference<InMemoryFenceStore> current = new AtomicReference<>(new InMemoryFenceStore());
        AtomicInteger statements = new AtomicInteger();
        FenceStore failingOver = new FenceStore() {
            @Override
            public FenceDecision admit(FenceClaim claim) {
                statements.incrementAndGet();
                return current.get().admit(claim);
            }

            @Override
            public Optional<Fence> read(ResourceKey resource) {
                return current.get().read(resource);
            }
        };
        List<FenceClaim> regressions = new CopyOnWriteArrayList<>();
        FenceAdmission admission = new FenceAdmission(failingOver, fences, new RememberedFences(100), regressions::add);
        try (FenceChecker checker = checker(admission, 1, Duration.ZERO, Optional::empty)) {
            FenceClaim atFive = claim("/jobs/7", 5);
            assertThat(checker.check(atFive).get(5, TimeUnit.SECONDS)).isInstanceOf(FenceDecision.Admitted.class);
            checker.finished(atFive, true);
            int statementsBefore = statements.get();
            current.set(new InMemoryFenceStore()); // the store lost the fence

            FenceDecision decision = checker.check(claim("/jobs/7", 4)).get(5, TimeUnit.SECONDS);

            assertThat(decision).isInstanceOfSatisfying(FenceDecision.Stale.class,
                    stale -> assertThat(stale.current().token()).isEqualTo(new FencingToken(5)));
            assertThat(statements.get()).as("statements to the store").isEqualTo(statementsBefore);
            assertThat(regressions).as("fence regressions seen").isEmpty();
            assertThat(current.get().read(new ResourceKey("/jobs/7"))).as("the store's fence, not raised back").isEmpty();
        }
    }

    private FenceChecker checker(int threads, Duration overlapAfter) {
        return checker(threads, overlapAfter, Optional::empty);
    }

    private FenceChecker checker(int threads, Duration overlapAfter, Supplier<Optional<String>> writesRefused) {
        return checker(new FenceAdmission(store, fences, new RememberedFences(100), claim -> { }), threads, overlapAfter,
                writesRefused);
    }

    private FenceChecker checker(FenceAdmission admission, int threads, Duration overlapAfter,
                                 Supplier<Optional<String>> writesRefused) {
        return new FenceChecker(admission, fences,
                threads, overlapAfter, 64, Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofSeconds(1),
                writesRefused, () -> "pool");
    }

    private static FenceClaim claim(String resource) {
        return claim(resource, 1);
    }

    private static FenceClaim claim(String resource, long token) {
        return new FenceClaim(new ResourceKey(resource), new FencingToken(token), Optional.empty());
    }
}
