package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** How decisions the store was asked for come back to the event loop that asked. */
class FenceCheckerTest {

    /**
     * Each hand-back to an event loop wakes it: a batch's decisions for one loop go to it as one
     * task, and each is completed on that loop.
     */
    @Test
    void aBatchsDecisionsForOneEventLoopAreHandedToItInOneTask() throws Exception {
        InMemoryFenceStore memory = new InMemoryFenceStore();
        CountDownLatch firstJudging = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FenceStore store = new FenceStore() {
            @Override
            public FenceDecision admit(FenceClaim claim) {
                if (claim.resource().value().equals("/first")) {
                    firstJudging.countDown();
                    try {
                        release.await(5, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return memory.admit(claim);
            }

            @Override
            public Optional<Fence> read(ResourceKey resource) {
                return memory.read(resource);
            }
        };
        InstanceFences fences = new InstanceFences(RegistrationRows.NONE,
                new LeaseTiming(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(10)), System::nanoTime);
        ExecutorService loop = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "loop"));
        AtomicInteger tasks = new AtomicInteger();
        try (FenceChecker checker = new FenceChecker(new FenceAdmission(store, fences, new RememberedFences(100), claim -> { }),
                fences, 1, 64, Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(1), Optional::empty, () -> "pool")) {
            Executor counted = task -> {
                tasks.incrementAndGet();
                loop.execute(task);
            };
            List<String> completedOn = new ArrayList<>();
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

    private static FenceClaim claim(String resource) {
        return new FenceClaim(new ResourceKey(resource), new FencingToken(1), Optional.empty());
    }
}
