package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.InMemoryFenceStore;
import dev.fencegate.fence.ResourceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Many claims, one answer: all admitted, or the first refusal with the claims admitted before it. */
class FenceBatchTest {

    private final InMemoryFenceStore store = new InMemoryFenceStore();
    private final List<FenceClaim> asked = new ArrayList<>();

    @Test
    void everyClaimAdmittedIsAllAdmitted() {
        FenceBatch.Result result = check(claim("/b/a", 5), claim("/b/b", 5));

        assertThat(result.allAdmitted()).isTrue();
        assertThat(result.admitted()).hasSize(2);
    }

    @Test
    void theFirstRefusalEndsTheBatchAndNamesTheClaimsAdmittedBeforeIt() {
        store.admit(claim("/b/b", 9));

        FenceBatch.Result result = check(claim("/b/a", 5), claim("/b/b", 5), claim("/b/c", 5));

        assertThat(result.allAdmitted()).isFalse();
        assertThat(result.refusal()).isInstanceOf(FenceDecision.Stale.class);
        assertThat(result.admitted()).extracting(a -> a.claim().resource().value()).containsExactly("/b/a");
        assertThat(asked).extracting(c -> c.resource().value()).containsExactly("/b/a", "/b/b");
    }

    @Test
    void aFailedCheckIsAnUnavailableRefusal() {
        FenceBatch.Result result = FenceBatch.check(List.of(claim("/b/a", 5)),
                claim -> CompletableFuture.failedFuture(new IllegalStateException("down")), decision -> { }).join();

        assertThat(result.refusal()).isInstanceOf(FenceDecision.Unavailable.class);
    }

    private FenceBatch.Result check(FenceClaim... claims) {
        List<FenceDecision> seen = new ArrayList<>();
        FenceBatch.Result result = FenceBatch.check(List.of(claims), claim -> {
            asked.add(claim);
            return CompletableFuture.supplyAsync(() -> store.admit(claim));
        }, seen::add).join();
        assertThat(seen).hasSize(asked.size());
        return result;
    }

    private static FenceClaim claim(String resource, long token) {
        return new FenceClaim(new ResourceKey(resource), new FencingToken(token), Optional.empty());
    }
}
