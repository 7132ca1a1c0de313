package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LeaseGuardTest {

    private final FakeTicker clock = new FakeTicker();
    private final Lease lease = new Lease("job", "worker-a", 7, Duration.ofSeconds(30));
    private final LeaseTiming timing = new LeaseTiming(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(6));

    @Test
    void theGuardGivesUpAMarginBeforeTheDeadlineCountedFromWhenTheRequestLeft() {
        long sentAt = clock.nanos();
        clock.advance(Duration.ofSeconds(2)); // the grant took two seconds to come back
        LeaseGuard guard = new LeaseGuard(lease, timing, clock, sentAt);

        clock.advance(Duration.ofSeconds(22).minusNanos(1));
        assertThat(guard.stillHeld()).as("24 s after the request, 6 s margin before 30 s").isTrue();
        clock.advance(Duration.ofNanos(1));
        assertThat(guard.stillHeld()).isFalse();
        assertThat(guard.lostBecause()).hasValueSatisfying(reason -> assertThat(reason).contains("ran out"));
        assertThatThrownBy(guard::checkHeld).isInstanceOf(LeaseLostException.class).hasMessageContaining("token 7");
    }

    /**
     * Linux stops the monotonic clock while the host is suspended; the grant runs on at the lease
     * store. The wall clock, read as a second bound, ends the lease; stepped back, it changes nothing.
     */
    @Test
    void aSuspendedHostsWallClockEndsTheLeaseThoughTheMonotonicClockStoodStill() {
        LeaseGuard guard = new LeaseGuard(lease, timing, clock, clock.nanos());
        clock.advance(Duration.ofSeconds(10));
        guard.renewed(clock.nanos(), clock.wallNanos());
        clock.suspend(Duration.ofSeconds(24).minusNanos(1));
        assertThat(guard.stillHeld()).as("24 s after the renewal by the wall clock, 0 s by the monotonic one").isTrue();
        clock.suspend(Duration.ofNanos(1));
        assertThat(guard.stillHeld()).isFalse();
        assertThat(guard.lostBecause()).hasValueSatisfying(reason -> assertThat(reason).contains("ran out by the wall clock"));

        // A suspend while the grant or a renewal was on its way back: its clocks were read as it left.
        FakeTicker asleep = new FakeTicker();
        long sentAt = asleep.nanos();
        long sentAtWall = asleep.wallNanos();
        asleep.suspend(Duration.ofSeconds(60));
        assertThat(new LeaseGuard(lease, timing, asleep, sentAt, sentAtWall).stillHeld()).as("a grant").isFalse();
        LeaseGuard renewing = new LeaseGuard(lease, timing, asleep, asleep.nanos(), asleep.wallNanos());
        asleep.advance(Duration.ofSeconds(10));
        long renewalSent = asleep.nanos();
        long renewalSentWall = asleep.wallNanos();
        asleep.suspend(Duration.ofSeconds(60));
        renewing.renewed(renewalSent, renewalSentWall);
        assertThat(renewing.stillHeld()).as("a renewal").isFalse();

        FakeTicker stepped = new FakeTicker();
        LeaseGuard back = new LeaseGuard(lease, timing, stepped, stepped.nanos());
        stepped.suspend(Duration.ofHours(-1)); // a wall clock stepped back an hour
        stepped.advance(Duration.ofSeconds(24).minusNanos(1));
        assertThat(back.stillHeld()).isTrue();
        stepped.advance(Duration.ofNanos(1));
        assertThat(back.stillHeld()).as("the monotonic clock still ends it").isFalse();
    }

    /**
     * A wall clock stepped back would hold the wall deadline of the old reading until the clock
     * caught up with it, an hour later for a step of an hour, and a suspend meanwhile would go
     * unseen: each renewal sets the wall deadline from its own reading.
     */
    @Test
    void aRenewalAfterTheWallClockSteppedBackBoundsASuspendByTheNewReading() {
        LeaseGuard guard = new LeaseGuard(lease, timing, clock, clock.nanos());
        clock.suspend(Duration.ofHours(-1)); // the wall clock stepped back an hour
        for (int i = 0; i < 6; i++) {
            clock.advance(Duration.ofSeconds(10));
            guard.renewed(clock.nanos(), clock.wallNanos());
        }
        clock.suspend(Duration.ofSeconds(24).minusNanos(1));
        assertThat(guard.stillHeld()).as("24 s after the last renewal by the wall clock").isTrue();
        clock.suspend(Duration.ofMinutes(10));
        assertThat(guard.stillHeld()).as("ten minutes suspended after the last renewal").isFalse();
        assertThat(guard.lostBecause()).hasValueSatisfying(reason -> assertThat(reason).contains("ran out by the wall clock"));
    }

    @Test
    void aRenewalMovesTheDeadlineFromWhenItsRequestLeftButNeverRevivesATrippedGuard() {
        LeaseGuard guard = new LeaseGuard(lease, timing, clock, clock.nanos());
        clock.advance(Duration.ofSeconds(20));
        guard.renewed(clock.nanos(), clock.wallNanos());
        clock.advance(Duration.ofSeconds(23));
        assertThat(guard.stillHeld()).as("43 s in, renewed at 20 s").isTrue();

        guard.trip("fenced out");
        guard.renewed(clock.nanos(), clock.wallNanos());
        assertThat(guard.stillHeld()).isFalse();
        assertThat(guard.lostBecause()).hasValue("fenced out");
    }

    @Test
    void everyListenerHearsOfTheLossOnceAndALateListenerAtOnce() {
        LeaseGuard guard = new LeaseGuard(lease, timing, clock, clock.nanos());
        List<String> heard = new CopyOnWriteArrayList<>();
        guard.onLoss(heard::add);
        guard.trip("renewal failed");
        guard.trip("a second reason");
        guard.onLoss(reason -> heard.add("late: " + reason));
        assertThat(heard).containsExactly("renewal failed", "late: renewal failed");
    }

    @Test
    void aTripOnTheWorkersOwnThreadLeavesItsInterruptFlagAlone() {
        LeaseGuard guard = new LeaseGuard(lease, timing, clock, clock.nanos());
        guard.interruptOnLoss(Thread.currentThread());
        guard.trip("its own write was refused");
        assertThat(Thread.interrupted()).isFalse();

        LeaseGuard other = new LeaseGuard(lease, timing, clock, clock.nanos());
        other.interruptOnLoss(Thread.currentThread());
        Thread renewal = new Thread(() -> other.trip("renewal failed"));
        renewal.start();
        try {
            renewal.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the interrupt came while joining; keep it for the assertion
        }
        assertThat(Thread.interrupted()).as("tripped from another thread").isTrue();
    }

    @Test
    void aFailingListenerDoesNotKeepTheOthersFromHearing() {
        LeaseGuard guard = new LeaseGuard(lease, timing, clock, clock.nanos());
        List<String> heard = new CopyOnWriteArrayList<>();
        guard.onLoss(reason -> {
            throw new IllegalStateException("a broken listener");
        });
        guard.onLoss(heard::add);
        guard.trip("renewal failed");
        assertThat(heard).containsExactly("renewal failed");
    }

    @Test
    void aReleasedGuardIsNoLongerHeldAndInterruptsNobody() {
        LeaseGuard guard = new LeaseGuard(lease, timing, clock, clock.nanos());
        guard.interruptOnLoss(Thread.currentThread());
        guard.released();
        assertThat(Thread.interrupted()).isFalse();
        assertThat(guard.stillHeld()).isFalse();
    }

    @Test
    void timingsThatCannotRenewInTimeAreRefusedWithWhatWasExpected() {
        assertThatThrownBy(() -> new LeaseTiming(Duration.ofSeconds(10), Duration.ofSeconds(8), Duration.ofSeconds(3)))
                .hasMessageContaining("renewEvery: PT8S (expected less than the ttl minus the margin, PT7S)");
        assertThatThrownBy(() -> new LeaseTiming(Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofSeconds(10)))
                .hasMessageContaining("margin");
        assertThat(LeaseTiming.of(Duration.ofSeconds(30))).isEqualTo(
                new LeaseTiming(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(6)));
    }

    /**
     * A trip whose listeners are still running when the holder releases the lease (the work done)
     * must not interrupt what the worker's thread does next.
     */
    @Test
    void aTripWhoseListenersRunAfterTheHolderReleasedTheLeaseInterruptsNobody() throws Exception {
        LeaseGuard guard = new LeaseGuard(lease, timing, clock, clock.nanos());
        CountDownLatch tripping = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        guard.onLoss(reason -> {
            tripping.countDown();
            try {
                released.await(10, TimeUnit.SECONDS);   // the renewal thread, descheduled mid-trip
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        guard.interruptOnLoss(Thread.currentThread());
        Thread renewal = new Thread(() -> guard.trip("the lease store refused the renewal"));
        renewal.start();
        try {
            assertThat(tripping.await(10, TimeUnit.SECONDS)).isTrue();
            guard.released();
            released.countDown();
            renewal.join(10_000);

            assertThat(Thread.interrupted()).as("the worker's thread, interrupted after it released the lease").isFalse();
        } finally {
            Thread.interrupted();
        }
    }
}
