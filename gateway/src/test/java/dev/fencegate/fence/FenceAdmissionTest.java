package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The order of one admission: register, judge, hold back behind lower local writes, never regress. */
class FenceAdmissionTest {

    private static final ResourceKey KEY = new ResourceKey("/jobs/7");

    private InMemoryFenceStore store = new InMemoryFenceStore();
    private final RememberedFences remembered = new RememberedFences(1_000);
    private final List<FenceClaim> regressions = new ArrayList<>();
    private final List<ResourceKey> registered = new ArrayList<>();
    /** Run once, after the next row write committed and before its rows are recorded. */
    private Runnable afterRowsWritten = () -> { };
    /** Run once, after the store judged the next batch and before its answers are settled. */
    private Runnable afterJudged = () -> { };
    /** The next row write commits, and its answer is lost. */
    private boolean loseNextWritesAnswer;
    private final List<ResourceKey> withdrawn = new ArrayList<>();
    /** Every batch fails before anything is sent, as with no connection to be had. */
    private boolean storeDown;
    /** Admitted claims are judged as waiting on another instance's expired row instead. */
    private boolean expiredRowElsewhere;
    private final List<ResourceKey> expiredRowsForgotten = new ArrayList<>();
    private final RegistrationRows rows = new RegistrationRows() {
        @Override
        public List<Written> write(Map<ResourceKey, Long> minTokens, Duration length) {
            registered.addAll(minTokens.keySet());
            if (loseNextWritesAnswer) {
                loseNextWritesAnswer = false;
                throw new FenceStoreUnavailableException("connection lost as the rows committed", null, true);
            }
            List<Written> written = RegistrationRows.NONE.write(minTokens, length);
            Runnable then = afterRowsWritten;
            afterRowsWritten = () -> { };
            then.run();
            return written;
        }

        @Override
        public void tidy(List<Change> withdrawals, List<Change> narrowings) {
            withdrawals.forEach(change -> withdrawn.add(change.resource()));
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
    void theFirstRefusalOfSeveralKeysIsFoundWithoutRaisingNamingOrRegisteringAny() {
        ResourceKey first = new ResourceKey("/b/k1");
        ResourceKey second = new ResourceKey("/b/k2");
        ResourceKey fresh = new ResourceKey("/b/k0");
        store.admit(new FenceClaim(first, new FencingToken(6), Optional.of(new Holder("A"))));
        store.admit(new FenceClaim(second, new FencingToken(7), Optional.of(new Holder("A"))));
        Optional<Holder> c = Optional.of(new Holder("C"));
        List<FenceClaim> keys = List.of(new FenceClaim(fresh, new FencingToken(7), c),
                new FenceClaim(first, new FencingToken(7), c), new FenceClaim(second, new FencingToken(7), c));

        Optional<FenceDecision> refusal = admission().firstRefusal(keys);

        assertThat(refusal).get().isInstanceOfSatisfying(FenceDecision.Reused.class,
                reused -> assertThat(reused.claim()).isEqualTo(keys.get(2)));
        assertThat(store.read(fresh)).isEmpty();
        assertThat(store.read(first)).get().satisfies(fence -> {
            assertThat(fence.token().value()).isEqualTo(6);
            assertThat(fence.holder()).contains(new Holder("A"));
        });
        assertThat(registered).isEmpty();
        assertThat(admission().firstRefusal(keys.subList(0, 2))).isEmpty();
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

    /**
     * A change by hand to this instance's row (deleted, or updated) heard while the store judged a
     * claim it covered: another instance may already have raised past the row it no longer sees,
     * so the claim is not admitted on that read; it registers again and is judged again.
     */
    @Test
    void aWriteWhoseRowWasChangedByHandWhileItsFenceWasReadIsNotSent() {
        // Only while the listener confirms that it hears does a lease cover a claim without its row.
        local.listenerListening();
        local.listenerConfirmed(System.nanoTime());
        FenceAdmission admission = admission();
        local.enter(claim(3));
        assertThat(admission.attempt(claim(3))).isInstanceOf(FenceDecision.Admitted.class);
        local.exit(claim(3));
        afterJudged = () -> local.heard(KEY, OptionalLong.empty());

        local.enter(claim(3));
        FenceDecision decision = admission.attempt(claim(3));

        assertThat(decision).isInstanceOf(FenceDecision.Draining.class);
        FenceDecision again = admission.attempt(claim(3));
        assertThat(registered).as("judged again after registering again").containsExactly(KEY, KEY);
        assertThat(((FenceDecision.Admitted) again).window().closed()).isFalse();
        local.exit(claim(3));
    }

    /**
     * The same for a claim the batch registered: a change by hand heard after its row was written
     * may have undone the row, so the lease it starts covers nothing and the claim registers again.
     */
    @Test
    void aRowChangedByHandRightAfterItWasWrittenCoversNoWrite() {
        FenceAdmission admission = admission();
        afterRowsWritten = () -> local.heard(KEY, OptionalLong.empty());

        local.enter(claim(3));
        FenceDecision decision = admission.attempt(claim(3));

        assertThat(decision).isInstanceOf(FenceDecision.Draining.class);
        FenceDecision next = admission.attempt(claim(3));
        assertThat(registered).as("judged again after registering again").containsExactly(KEY, KEY);
        assertThat(((FenceDecision.Admitted) next).window().closed()).isFalse();
        local.exit(claim(3));
    }

    /**
     * A row write whose answer was lost may have committed a row whose generation this instance
     * never learnt, which no withdrawal could then name: the sweep writes it again and withdraws it.
     */
    @Test
    void aRowWriteWhoseOutcomeIsUnknownIsWrittenAgainAndThenWithdrawn() {
        FenceAdmission admission = admission();
        loseNextWritesAnswer = true;

        assertThat(admission.attempt(claim(3))).isInstanceOf(FenceDecision.Unavailable.class);
        local.reconcile();
        assertThat(registered).as("written again by the sweep").containsExactly(KEY, KEY);
        local.reconcile();

        assertThat(withdrawn).containsExactly(KEY);
    }

    /** Writes to ever new resources while the fence store is down leave nothing behind once a sweep has run. */
    @Test
    void claimsThatCouldNotRegisterLeaveNothingBehindAfterTheNextSweep() {
        FenceAdmission admission = admission();
        storeDown = true;
        for (int i = 0; i < 1_000; i++) {
            FenceClaim claim = new FenceClaim(new ResourceKey("/new/" + i), new FencingToken(1), Optional.empty());
            local.enter(claim);
            assertThat(admission.attempt(claim)).isInstanceOf(FenceDecision.Unavailable.class);
            local.exit(claim);
        }

        local.reconcile();

        assertThat(local.resourcesKept()).isZero();
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

    /** A fence this instance read in a refusal, through its own connection, was durable: a store found below it later lost it. */
    @Test
    void aFenceThisInstanceReadThatTheStoreLostIsRaisedBackUp() {
        FenceAdmission admission = admission();
        assertThat(admission.attempt(claim(10))).isInstanceOf(FenceDecision.Admitted.class);
        store.admit(claim(50)); // raised elsewhere
        assertThat(admission.attempt(claim(20))).as("read at 50").isInstanceOf(FenceDecision.Stale.class);
        InMemoryFenceStore copy = new InMemoryFenceStore(); // the database failed over to a copy that holds 10
        copy.admit(claim(10));
        store = copy;

        FenceDecision decision = admission.attempt(claim(20));

        assertThat(decision).isInstanceOf(FenceDecision.Stale.class);
        assertThat(regressions).containsExactly(claim(20));
        assertThat(store.read(KEY)).map(fence -> fence.token().value()).hasValue(50L);
    }

    /**
     * Any role that may connect can send a notice naming a token: the claim above the fence is
     * refused while the notice is remembered, but the notice is not a fence this instance made,
     * so it is neither written to the store nor reported as one the store lost.
     */
    @Test
    void aRaiseOnlyHeardOfIsNeverWrittenToTheStoreNorTakenForALostFence() {
        FenceAdmission admission = admission();
        assertThat(admission.attempt(claim(10))).isInstanceOf(FenceDecision.Admitted.class);
        remembered.heardOf(KEY, 100_000); // NOTIFY fencegate_inflight, '/jobs/7\n100000', from anyone

        FenceDecision decision = admission.attempt(claim(11));

        assertThat(decision).isInstanceOf(FenceDecision.Stale.class);
        assertThat(((FenceDecision.Stale) decision).current().token().value()).isEqualTo(100_000);
        assertThat(regressions).isEmpty();
        assertThat(store.read(KEY)).map(fence -> fence.token().value()).as("the store's fence").hasValue(11L);
    }

    /**
     * A notice of another instance's raise can arrive while this instance's read, begun before
     * that raise committed, is still on its way back: the claim is refused, but the store lost
     * nothing, and nothing is reported or raised back.
     */
    @Test
    void aRaiseHeardOfWhileTheClaimWasJudgedRefusesItWithoutAnAlarm() {
        FenceAdmission admission = admission();
        assertThat(admission.attempt(claim(218))).isInstanceOf(FenceDecision.Admitted.class);
        afterJudged = () -> remembered.heardOf(KEY, 219);

        FenceDecision decision = admission.attempt(claim(218));

        assertThat(decision).isInstanceOf(FenceDecision.Stale.class);
        assertThat(regressions).isEmpty();
        assertThat(store.read(KEY)).map(fence -> fence.token().value()).hasValue(218L);
    }

    /**
     * A notice that comes while two claims below it are judged together refuses both, and
     * neither the refusal of the first nor the second makes the notice a fence this instance
     * confirmed: nothing is reported, and the store keeps the fence it set.
     */
    @Test
    void aRaiseHeardOfWhileTwoClaimsAreJudgedTogetherIsNeitherReportedNorWrittenToTheStore() {
        FenceAdmission admission = admission();
        assertThat(admission.attempt(claim(10))).isInstanceOf(FenceDecision.Admitted.class);
        afterJudged = () -> remembered.heardOf(KEY, 100_000); // NOTIFY, from anyone, as the batch is judged

        List<FenceDecision> decisions = admission.attemptAll(List.of(claim(11), claim(12)));

        assertThat(decisions).allMatch(decision -> decision instanceof FenceDecision.Stale);
        assertThat(regressions).isEmpty();
        assertThat(store.read(KEY)).map(fence -> fence.token().value()).as("the store's fence").hasValue(12L);
    }

    /**
     * A claim already past the check from memory when a refusal named a raise only heard of (it
     * was queued before the notice came) is judged by the store, and refused from the notice
     * again: the notice did not become a fence this instance confirmed, so it is not written back.
     */
    @Test
    void aClaimJudgedAfterARefusalNamedARaiseOnlyHeardOfDoesNotWriteThatRaiseToTheStore() {
        FenceAdmission admission = admission();
        assertThat(admission.attempt(claim(10))).isInstanceOf(FenceDecision.Admitted.class);
        afterJudged = () -> remembered.heardOf(KEY, 100_000);
        assertThat(admission.attempt(claim(11))).isInstanceOf(FenceDecision.Stale.class);

        FenceDecision next = admission.attempt(claim(12));

        assertThat(next).isInstanceOf(FenceDecision.Stale.class);
        assertThat(regressions).isEmpty();
        assertThat(store.read(KEY)).map(fence -> fence.token().value()).as("the store's fence").hasValue(12L);
        assertThat(remembered.confirmed(KEY)).as("what the store admitted through this instance, not the notice").hasValue(12L);
    }

    /**
     * A flood of notices for other resources (one statement sends a hundred thousand) does not
     * cost the regression guard its memory: a fence the store then loses is still refused,
     * reported and raised back.
     */
    @Test
    void aFloodOfNoticesForOtherResourcesLeavesTheRegressionGuardItsMemory() {
        FenceAdmission admission = admission();
        assertThat(admission.attempt(claim(10))).isInstanceOf(FenceDecision.Admitted.class);
        for (int i = 0; i < 5_000; i++) {
            remembered.heardOf(new ResourceKey("/flood/" + i), 1);
        }
        store = new InMemoryFenceStore(); // the database failed over to a copy that never saw token 10

        assertThat(admission.attempt(claim(5))).isInstanceOf(FenceDecision.Stale.class);
        assertThat(regressions).containsExactly(claim(5));
        assertThat(store.read(KEY)).map(fence -> fence.token().value()).as("raised back").hasValue(10L);
    }

    @Test
    void aFenceTheStoreLostIsRefusedAlsoWhenTheClaimWaitedOnAnotherInstancesExpiredRow() throws InterruptedException {
        FenceAdmission admission = admission();
        assertThat(admission.attempt(claim(10))).isInstanceOf(FenceDecision.Admitted.class);
        store = new InMemoryFenceStore(); // the database failed over to a copy that never saw token 10 ...
        store.admit(claim(5));
        expiredRowElsewhere = true; // ... and holds another instance's expired row for the resource

        assertThat(admission.attempt(claim(7))).as("the expired row's grace begins").isInstanceOf(FenceDecision.Draining.class);
        Thread.sleep(1_400);
        FenceDecision decision = admission.attempt(claim(7));

        assertThat(decision).isInstanceOf(FenceDecision.Stale.class);
        assertThat(regressions).containsExactly(claim(7));
    }

    /**
     * An operator's raise over a row another instance left to expire (it died) drains while that
     * instance may still hold the fence, then removes its rows and is admitted, as a write's raise
     * is: asked again, it no longer finds anything below it that could still be sent.
     */
    @Test
    void aRaiseOverAnotherInstancesExpiredRowIsAdmittedOnceItsGraceIsServed() throws InterruptedException {
        FenceAdmission admission = admission();
        store.admit(claim(5));
        expiredRowElsewhere = true;

        assertThat(admission.raise(KEY, new FencingToken(6))).as("the expired row's grace begins")
                .isInstanceOf(FenceDecision.Draining.class);
        assertThat(expiredRowsForgotten).isEmpty();
        Thread.sleep(InstanceFences.EXPIRED_HOLDER_GRACE.toMillis() + 150);

        assertThat(admission.raise(KEY, new FencingToken(6))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(expiredRowsForgotten).containsExactly(KEY);
        assertThat(store.read(KEY)).map(fence -> fence.token().value()).hasValue(6L);
    }

    /**
     * A grace served for a raise to 6, never asked again, does not cover a later raise to 10: the
     * expired row's instance had time to hear of 6, not of 10, so the raise to 10 drains for a
     * grace of its own before the rows go.
     */
    @Test
    void aHigherRaiseOverAnExpiredRowGetsAGraceOfItsOwn() throws InterruptedException {
        FenceAdmission admission = admission();
        store.admit(claim(5));
        expiredRowElsewhere = true;
        assertThat(admission.raise(KEY, new FencingToken(6))).isInstanceOf(FenceDecision.Draining.class);
        Thread.sleep(InstanceFences.EXPIRED_HOLDER_GRACE.toMillis() + 150);

        assertThat(admission.raise(KEY, new FencingToken(10))).as("the grace for 10 begins")
                .isInstanceOf(FenceDecision.Draining.class);
        assertThat(expiredRowsForgotten).isEmpty();
        Thread.sleep(InstanceFences.EXPIRED_HOLDER_GRACE.toMillis() + 150);
        assertThat(admission.raise(KEY, new FencingToken(10))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(expiredRowsForgotten).containsExactly(KEY);
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

    @Test
    void aTokenRefusedFromMemoryNamesTheHighestFenceThisInstanceRaisedOrReadNotOnlyWhatItAdmitted() {
        FenceAdmission admission = admission();
        admission.attempt(claim(8));
        admission.raise(KEY, new FencingToken(12));
        assertThat(admission.knownStale(claim(7))).get().isInstanceOfSatisfying(FenceDecision.Stale.class,
                stale -> assertThat(stale.current().token().value()).as("after a raise here").isEqualTo(12));

        store.admit(claim(30)); // another instance, which told nobody: this one had no registration there
        assertThat(admission.attempt(claim(10))).isInstanceOf(FenceDecision.Stale.class);
        assertThat(admission.knownStale(claim(7))).get().isInstanceOfSatisfying(FenceDecision.Stale.class,
                stale -> assertThat(stale.current().token().value()).as("after a refusal that read the fence").isEqualTo(30));
    }

    /**
     * A write admitted while the listener was away stands on a row nobody of this instance would
     * hear deleted: it stops going out once the listener listens again, also when attempts to listen
     * failed in between (a pool slow to give the listener a connection).
     */
    @Test
    void aWriteAdmittedWhileTheListenerWasAwayStopsOnceItListensAgainAfterFailedAttempts() {
        local.listenerListening();
        local.listenerConfirmed(System.nanoTime());
        local.listenerLost();
        FenceAdmission admission = admission();
        local.enter(claim(5));
        FenceDecision.Admitted admitted = (FenceDecision.Admitted) admission.attempt(claim(5));
        local.listenerLost();
        local.listenerLost();
        assertThat(admitted.window().closed()).as("failed attempts to listen change nothing").isFalse();

        local.listenerListening();

        assertThat(admitted.window().closed()).isTrue();
        local.exit(claim(5));
    }

    /** Lets a test swap the store underneath, as a failover would, and act between judging and settling. */
    private final class DelegatingStore implements FenceStore {
        @Override
        public FenceDecision admit(FenceClaim claim) {
            FenceDecision decision = store.admit(claim);
            return expiredRowElsewhere && decision instanceof FenceDecision.Admitted admitted
                    ? new FenceDecision.Draining(claim, store.read(claim.resource()).orElseThrow(), true) : decision;
        }

        @Override
        public void forgetExpiredRegistrations(ResourceKey resource) {
            expiredRowsForgotten.add(resource);
            expiredRowElsewhere = false;
        }

        @Override
        public List<FenceDecision> admitAll(List<FenceClaim> claims, BatchRegistration registration) {
            if (storeDown) {
                throw new FenceStoreUnavailableException("no connection to the fence store");
            }
            List<FenceDecision> decisions = FenceStore.super.admitAll(claims, registration);
            if (expiredRowElsewhere) {
                decisions.replaceAll(decision -> decision instanceof FenceDecision.Admitted admitted
                        ? new FenceDecision.Draining(admitted.claim(), store.read(admitted.claim().resource()).orElseThrow(), true)
                        : decision);
            }
            Runnable then = afterJudged;
            afterJudged = () -> { };
            then.run();
            return decisions;
        }

        @Override
        public Optional<Fence> read(ResourceKey resource) {
            return store.read(resource);
        }
    }
}
