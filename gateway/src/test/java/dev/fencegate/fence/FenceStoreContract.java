package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What every {@link FenceStore} must do, whatever keeps the fences. Each test works on resources
 * of its own, so an implementation may share one store between the tests of a class.
 */
public abstract class FenceStoreContract {

    private static final int THREADS = 8;
    private static final int CLAIMS_PER_THREAD = 150;
    private static final int RESOURCES = 3;

    private final String prefix = "/contract/" + UUID.randomUUID() + "/";

    protected abstract FenceStore store();

    @Test
    void theFirstClaimIsAdmittedAndRecorded() {
        ResourceKey key = key("first");
        FenceClaim claim = claim(key, 5, "a");

        assertThat(store().admit(claim)).isEqualTo(new FenceDecision.Admitted(claim, Optional.empty()));
        assertThat(store().read(key)).contains(fence(key, 5, "a"));
    }

    @Test
    void aFirstClaimWithoutAHolderRecordsNone() {
        ResourceKey key = key("anonymous");

        assertThat(store().admit(claim(key, 1, null)).kind()).isEqualTo(FenceDecision.Kind.ADMITTED);
        assertThat(store().read(key)).contains(fence(key, 1, null));
    }

    @Test
    void anEqualClaimIsAdmittedWithoutChangingTheHolder() {
        ResourceKey key = key("equal");
        store().admit(claim(key, 5, "a"));
        FenceClaim again = claim(key, 5, null);

        assertThat(store().admit(again)).isEqualTo(new FenceDecision.Admitted(again, Optional.of(new FencingToken(5))));
        assertThat(store().admit(claim(key, 5, "a")).kind()).isEqualTo(FenceDecision.Kind.ADMITTED);
        assertThat(store().read(key)).contains(fence(key, 5, "a"));
    }

    /**
     * A fence raised with no holder (an admin raise, a writer naming none) takes the first holder
     * admitted at its token, so the same token from another holder is then reused, as it would be
     * had that holder raised it.
     */
    @Test
    void theFirstHolderAdmittedAtAnUnnamedFenceNamesItAndAnotherHolderIsThenReused() {
        ResourceKey key = key("unnamed");
        store().admit(claim(key, 5, null));

        assertThat(store().admit(claim(key, 5, "b")).kind()).isEqualTo(FenceDecision.Kind.ADMITTED);
        assertThat(store().read(key)).contains(fence(key, 5, "b"));
        assertThat(store().admit(claim(key, 5, "c")).kind()).isEqualTo(FenceDecision.Kind.REUSED);
        assertThat(store().admit(claim(key, 5, "b")).kind()).isEqualTo(FenceDecision.Kind.ADMITTED);
        assertThat(store().admit(claim(key, 5, null)).kind()).isEqualTo(FenceDecision.Kind.ADMITTED);
        assertThat(store().read(key)).contains(fence(key, 5, "b"));
    }

    @Test
    void aHigherClaimRaisesTheFenceAndRecordsItsHolder() {
        ResourceKey key = key("higher");
        store().admit(claim(key, 5, "a"));
        FenceClaim higher = claim(key, 9, "b");

        assertThat(store().admit(higher)).isEqualTo(new FenceDecision.Admitted(higher, Optional.of(new FencingToken(5))));
        assertThat(store().read(key)).contains(fence(key, 9, "b"));
    }

    @Test
    void aHigherClaimWithoutAHolderLeavesNoneRecorded() {
        ResourceKey key = key("higher-anonymous");
        store().admit(claim(key, 5, "a"));

        assertThat(store().admit(claim(key, 6, null)).kind()).isEqualTo(FenceDecision.Kind.ADMITTED);
        assertThat(store().read(key)).contains(fence(key, 6, null));
    }

    @Test
    void aLowerClaimIsStaleNamingTheCurrentFenceAndChangesNothing() {
        ResourceKey key = key("lower");
        store().admit(claim(key, 5, "a"));
        FenceClaim lower = claim(key, 4, "b");

        assertThat(store().admit(lower)).isEqualTo(new FenceDecision.Stale(lower, fence(key, 5, "a")));
        assertThat(store().read(key)).contains(fence(key, 5, "a"));
    }

    @Test
    void theSameTokenFromAnotherHolderIsReusedAndChangesNothing() {
        ResourceKey key = key("reused");
        store().admit(claim(key, 5, "a"));
        FenceClaim other = claim(key, 5, "b");

        assertThat(store().admit(other)).isEqualTo(new FenceDecision.Reused(other, fence(key, 5, "a")));
        assertThat(store().read(key)).contains(fence(key, 5, "a"));
    }

    @Test
    void anUnknownResourceHasNoFence() {
        assertThat(store().read(key("never-claimed"))).isEmpty();
    }

    @Test
    void resourcesAreFencedIndependently() {
        ResourceKey high = key("independent-high");
        ResourceKey low = key("independent-low");
        store().admit(claim(high, 100, null));

        assertThat(store().admit(claim(low, 1, null)).kind()).isEqualTo(FenceDecision.Kind.ADMITTED);
        assertThat(store().read(low)).contains(fence(low, 1, null));
        assertThat(store().read(high)).contains(fence(high, 100, null));
    }

    @Test
    void theLargestTokenIsKeptExactly() {
        ResourceKey key = key("max");
        store().admit(claim(key, Long.MAX_VALUE - 1, null));
        store().admit(claim(key, Long.MAX_VALUE, "z"));

        assertThat(store().read(key)).contains(fence(key, Long.MAX_VALUE, "z"));
        assertThat(store().admit(claim(key, Long.MAX_VALUE - 1, null)).kind()).isEqualTo(FenceDecision.Kind.STALE);
    }

    /**
     * Threads race random claims on a few resources. No thread ever sees a fence go down, an
     * admitted token is in the store when admit returns, and each fence ends at the highest
     * token claimed (the first claim of the top token is either admitted or finds it recorded).
     */
    @Test
    void aFenceNeverGoesDownUnderRacingClaims() throws Exception {
        List<ResourceKey> keys = new ArrayList<>();
        for (int r = 0; r < RESOURCES; r++) {
            keys.add(key("race-" + r));
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        List<Future<List<Judged>>> results = new ArrayList<>();
        try {
            for (int t = 0; t < THREADS; t++) {
                long seed = t * 7919L + 1;
                results.add(threads.submit(() -> race(keys, new SplittableRandom(seed), start)));
            }
            start.countDown();
            List<Judged> all = new ArrayList<>();
            for (Future<List<Judged>> result : results) {
                all.addAll(result.get(60, TimeUnit.SECONDS));
            }

            assertThat(all).extracting(j -> j.decision().kind()).as("the race exercised raises and refusals")
                    .contains(FenceDecision.Kind.ADMITTED, FenceDecision.Kind.STALE);
            for (ResourceKey key : keys) {
                List<Judged> onKey = all.stream().filter(j -> j.claim().resource().equals(key)).toList();
                long highestClaimed = onKey.stream().mapToLong(j -> j.claim().token().value()).max().orElseThrow();
                long highestAdmitted = onKey.stream().filter(j -> j.decision().kind() == FenceDecision.Kind.ADMITTED)
                        .mapToLong(j -> j.claim().token().value()).max().orElseThrow();
                long last = store().read(key).orElseThrow().token().value();
                assertThat(last).as("final fence of %s", key).isEqualTo(highestClaimed).isEqualTo(highestAdmitted);
            }
            for (Judged judged : all) {
                long claimed = judged.claim().token().value();
                switch (judged.decision().kind()) {
                    case ADMITTED -> assertThat(judged.fenceAfter()).as("fence read after admitting %s", judged.claim())
                            .isGreaterThanOrEqualTo(claimed);
                    case STALE -> assertThat(((FenceDecision.Stale) judged.decision()).current().token().value())
                            .isGreaterThan(claimed);
                    case REUSED -> {
                        Fence current = ((FenceDecision.Reused) judged.decision()).current();
                        assertThat(current.token().value()).isEqualTo(claimed);
                        assertThat(current.holder()).isPresent().isNotEqualTo(judged.claim().holder());
                    }
                    default -> throw new AssertionError("a store only admits, or refuses as stale or reused: " + judged);
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private record Judged(FenceClaim claim, FenceDecision decision, long fenceAfter) {
    }

    private List<Judged> race(List<ResourceKey> keys, SplittableRandom random, CountDownLatch start) throws InterruptedException {
        start.await();
        String[] holders = {"a", "b", null};
        Map<ResourceKey, Long> lastSeen = new HashMap<>();
        List<Judged> judged = new ArrayList<>();
        for (int i = 0; i < CLAIMS_PER_THREAD; i++) {
            ResourceKey key = keys.get(random.nextInt(keys.size()));
            // Tokens creep up with some spread, so raises, equal tokens and stale claims all race.
            FenceClaim claim = claim(key, 1 + i + random.nextInt(12), holders[random.nextInt(holders.length)]);
            FenceDecision decision = store().admit(claim);
            long seen = store().read(key).orElseThrow().token().value();
            long before = lastSeen.getOrDefault(key, 0L);
            if (seen < before) {
                throw new AssertionError("fence of " + key + " went down from " + before + " to " + seen);
            }
            lastSeen.put(key, seen);
            judged.add(new Judged(claim, decision, seen));
        }
        return judged;
    }

    private ResourceKey key(String name) {
        return new ResourceKey(prefix + name);
    }

    private static FenceClaim claim(ResourceKey key, long token, String holder) {
        return new FenceClaim(key, new FencingToken(token), Optional.ofNullable(holder).map(Holder::new));
    }

    private static Fence fence(ResourceKey key, long token, String holder) {
        return new Fence(key, new FencingToken(token), Optional.ofNullable(holder).map(Holder::new));
    }
}
