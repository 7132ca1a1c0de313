package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The order of one admission: register, judge, hold back behind lower local writes, never regress. */
class FenceAdmissionTest {

    private static final ResourceKey KEY = new ResourceKey("/jobs/7");

    private InMemoryFenceStore store = new InMemoryFenceStore();
    private final RememberedFences remembered = new RememberedFences(1_000);
    private final List<FenceClaim> regressions = new ArrayList<>();
    private final List<ResourceKey> registered = new ArrayList<>();
    private final RegistrationRows rows = new RegistrationRows() {
        @Override
        public List<Written> write(Map<ResourceKey, Long> minTokens, Duration length) {
            registered.addAll(minTokens.keySet());
            return RegistrationRows.NONE.write(minTokens, length);
        }

        @Override
        public void tidy(List<Change> withdrawals, List<Change> narrowings) {
        }

        @Override
        public void withdrawAll() {
        }
    };
    private final InstanceFences local = new InstanceFences(rows,
            new LeaseTiming(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(10)), System::nanoTime);

    private FenceAdmission admission() {
        return new FenceAdmission(new DelegatingStore(), local, remembered, regressions::add);
    }

    private static FenceClaim claim(long token) {
        return new FenceClaim(KEY, new FencingToken(token), Optional.empty());
    }

    @Test
    void everyAttemptRegistersTheClaimBeforeTheFenceIsRead() {
        admission().attempt(claim(3));
        assertThat(registered).containsExactly(KEY);
    }

    @Test
    void aHigherTokenIsHeldBackWhileALowerOneFromThisInstanceIsInFlight() {
        FenceAdmission admission = admission();
        local.enter(claim(3));
        assertThat(admission.attempt(claim(3))).isInstanceOf(FenceDecision.Admitted.class);
        local.enter(claim(4));
        assertThat(admission.attempt(claim(4))).isInstanceOf(FenceDecision.Draining.class);
        local.exit(claim(3));
        assertThat(admission.attempt(claim(4))).isInstanceOf(FenceDecision.Admitted.class);
    }

    @Test
    void aFenceTheStoreLostIsRefusedReportedAndRaisedBackUp() {
        FenceAdmission admission = admission();
        assertThat(admission.attempt(claim(10))).isInstanceOf(FenceDecision.Admitted.class);
        store = new InMemoryFenceStore(); // the database failed over to a copy that never saw token 10

        FenceDecision decision = admission.attempt(claim(5));

        assertThat(decision).isInstanceOf(FenceDecision.Stale.class);
        assertThat(((FenceDecision.Stale) decision).current().token().value()).isEqualTo(10);
        assertThat(regressions).containsExactly(claim(5));
        assertThat(store.read(KEY)).map(fence -> fence.token().value()).hasValue(10L);
    }

    @Test
    void aTokenBelowOneThisInstanceAdmittedIsStaleWithoutAskingTheStore() {
        FenceAdmission admission = admission();
        admission.attempt(claim(8));
        store = new InMemoryFenceStore();
        assertThat(admission.knownStale(claim(7))).get().isInstanceOf(FenceDecision.Stale.class);
        assertThat(admission.knownStale(claim(8))).isEmpty();
        assertThat(store.read(KEY)).isEmpty();
    }

    /** Lets a test swap the store underneath, as a failover would. */
    private final class DelegatingStore implements FenceStore {
        @Override
        public FenceDecision admit(FenceClaim claim) {
            return store.admit(claim);
        }

        @Override
        public Optional<Fence> read(ResourceKey resource) {
            return store.read(resource);
        }
    }
}
