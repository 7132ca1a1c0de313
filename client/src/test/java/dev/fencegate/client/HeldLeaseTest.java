package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Renewal on a thread of its own, and self-abort when it fails, against the real PostgreSQL. */
class HeldLeaseTest {

    private static final LeaseTiming TIMING = new LeaseTiming(Duration.ofSeconds(3), Duration.ofMillis(500), Duration.ofMillis(600));
    private static DataSource database;
    private static LeaseStore leases;

    @BeforeAll
    static void migrate() {
        database = TestDatabase.migrated(HeldLeaseTest.class.getSimpleName());
        leases = new PostgresLeaseStore(database);
    }

    private static String name() {
        return "job-" + System.nanoTime();
    }

    @Test
    void theLeaseSurvivesAWriteLongerThanItsTtlBecauseRenewalRunsOnItsOwnThread() throws InterruptedException {
        String job = name();
        try (HeldLease held = HeldLease.acquire(leases, job, "worker-a", TIMING).orElseThrow()) {
            Thread.sleep(TIMING.ttl().multipliedBy(3).toMillis()); // the work blocks its own thread throughout

            assertThat(held.guard().stillHeld()).isTrue();
            assertThat(leases.acquire(job, "worker-b", TIMING.ttl())).as("another worker, after three ttls").isEmpty();
        }
        assertThat(Thread.interrupted()).as("closing interrupts nobody").isFalse();
        assertThat(leases.acquire(job, "worker-b", TIMING.ttl())).as("released on close").isPresent();
    }

    /** The grant starts at the store after the request left; a slow acquire only shortens the local view of it. */
    @Test
    void theLocalDeadlineIsCountedFromWhenTheAcquireRequestLeft() {
        FakeTicker clock = new FakeTicker();
        LeaseTiming minute = LeaseTiming.of(Duration.ofMinutes(1)); // no renewal while the test runs
        Duration slow = Duration.ofSeconds(20);
        LeaseStore slowToGrant = new LeaseStore() {
            @Override
            public Optional<Lease> acquire(String name, String holder, Duration ttl) {
                clock.advance(slow);
                return Optional.of(new Lease(name, holder, 1, ttl));
            }

            @Override
            public boolean renew(Lease lease, Duration ttl) {
                return true;
            }

            @Override
            public boolean release(Lease lease) {
                return true;
            }
        };
        try (HeldLease held = HeldLease.acquire(slowToGrant, name(), "worker-a", minute, clock).orElseThrow()) {
            clock.advance(minute.ttl().minus(minute.margin()).minus(slow).minusMillis(1));
            assertThat(held.guard().stillHeld()).isTrue();
            clock.advance(Duration.ofMillis(1));
            assertThat(held.guard().stillHeld()).as("a ttl less the margin after the request left, not after the grant came back")
                    .isFalse();
        }
    }

    @Test
    void closingReleasesAGrantStillLiveInTheStoreEvenAfterTheLocalClockGaveUpOnIt() {
        String job = name();
        FakeTicker clock = new FakeTicker();
        LeaseTiming minute = LeaseTiming.of(Duration.ofMinutes(1));
        HeldLease held = HeldLease.acquire(leases, job, "worker-a", minute, clock).orElseThrow();
        clock.advance(minute.ttl());
        assertThat(held.guard().stillHeld()).isFalse();
        assertThat(leases.acquire(job, "worker-b", minute.ttl())).as("live in the store").isEmpty();

        held.close();
        assertThat(leases.acquire(job, "worker-b", minute.ttl())).isPresent();
    }

    @Test
    void aStolenLeaseTripsTheGuardAtTheNextRenewalAndInterruptsTheWork() throws SQLException {
        String job = name();
        try (HeldLease held = HeldLease.acquire(leases, job, "worker-a", TIMING).orElseThrow()) {
            Work work = Work.start(held.guard());
            long stolenAt = System.nanoTime();
            try (Connection connection = database.getConnection();
                 PreparedStatement steal = connection.prepareStatement(
                         "UPDATE leases SET holder = 'worker-b', token = token + 1 WHERE name = ?")) {
                steal.setString(1, job); // a lease service that lost the grant and gave it away again
                steal.executeUpdate();
            }

            work.awaitInterrupted();
            assertThat(held.guard().lostBecause()).hasValueSatisfying(reason -> assertThat(reason).contains("refused the renewal"));
            assertThat(Duration.ofNanos(work.interruptedAt.get() - stolenAt))
                    .as("from the theft to the work's interrupt").isLessThan(TIMING.ttl().minus(TIMING.margin()));
        }
    }

    @Test
    void aLeaseStoreCutPastTheLocalDeadlineTripsTheGuardThereNamingTheFailure() {
        AtomicBoolean cut = new AtomicBoolean();
        DataSource nowhere = PostgresLeaseStore.dataSource("jdbc:postgresql://127.0.0.1:1/none", "postgres", "", "x", Duration.ofSeconds(1));
        LeaseStore cuttable = new PostgresLeaseStore(new SwitchedDataSource(database, nowhere, cut));
        AtomicLong lastRenewalSent = new AtomicLong();
        LeaseStore recorded = new LeaseStore() {
            @Override
            public Optional<Lease> acquire(String name, String holder, Duration ttl) {
                lastRenewalSent.set(System.nanoTime());
                return cuttable.acquire(name, holder, ttl);
            }

            @Override
            public boolean renew(Lease lease, Duration ttl) {
                long sent = System.nanoTime();
                boolean renewed = cuttable.renew(lease, ttl);
                if (renewed) {
                    lastRenewalSent.set(sent);
                }
                return renewed;
            }

            @Override
            public boolean release(Lease lease) {
                return cuttable.release(lease);
            }
        };
        try (HeldLease held = HeldLease.acquire(recorded, name(), "worker-a", TIMING).orElseThrow()) {
            Work work = Work.start(held.guard());
            cut.set(true);

            work.awaitInterrupted();
            assertThat(held.guard().lostBecause()).hasValueSatisfying(reason -> assertThat(reason)
                    .contains("ran out by the local clock").contains("the last renewal failed").contains("127.0.0.1:1"));
            // The grant can end at the store a ttl after the last renewal that got through was sent: the guard
            // gives up a margin before that (late by a watchdog period or so), not at it.
            Duration tripped = Duration.ofNanos(work.interruptedAt.get() - lastRenewalSent.get());
            assertThat(tripped).isGreaterThanOrEqualTo(TIMING.ttl().minus(TIMING.margin())).isLessThan(TIMING.ttl());
        }
    }

    /** A restart or failover of the lease database costs no lease, so long as a renewal gets through before the local deadline. */
    @Test
    void aLeaseStoreCutThatEndsBeforeTheLocalDeadlineLeavesTheLeaseHeld() throws InterruptedException {
        AtomicBoolean cut = new AtomicBoolean();
        DataSource nowhere = PostgresLeaseStore.dataSource("jdbc:postgresql://127.0.0.1:1/none", "postgres", "", "x", Duration.ofSeconds(1));
        LeaseStore cuttable = new PostgresLeaseStore(new SwitchedDataSource(database, nowhere, cut));
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger logger = (Logger) LoggerFactory.getLogger(HeldLease.class);
        logger.addAppender(log);
        try (HeldLease held = HeldLease.acquire(cuttable, name(), "worker-a", TIMING).orElseThrow()) {
            Work work = Work.start(held.guard());
            Thread.sleep(700);
            cut.set(true);
            Thread.sleep(1_200); // renewals are due every 500 ms: at least two fail
            cut.set(false);
            Thread.sleep(TIMING.ttl().toMillis()); // past the deadline the cut would have let run out

            assertThat(held.guard().stillHeld()).as("%s", held.guard().lostBecause()).isTrue();
            assertThat(log.list.stream().filter(event -> event.getLevel() == Level.WARN
                    && event.getFormattedMessage().contains("failed; trying again"))).as("renewals failed meanwhile").isNotEmpty();
            assertThat(work.interrupted.getCount()).as("the work was not interrupted").isEqualTo(1);
        } finally {
            logger.detachAppender(log);
        }
    }

    /**
     * Workers cut off by one failover must not all come back in step: each failed renewal is tried
     * again after a delay drawn between half a watchdog period and a whole one.
     */
    @Test
    void failedRenewalsAreTriedAgainAtDelaysSpreadOverAWatchdogPeriod() {
        List<Long> tries = new CopyOnWriteArrayList<>();
        LeaseStore failing = grantingEveryone(lease -> {
            tries.add(System.nanoTime());
            throw new LeaseStoreException("the lease store is failing over", null);
        });
        long period = TIMING.watchdogPeriod().toNanos();
        try (HeldLease held = HeldLease.acquire(failing, name(), "worker-a", TIMING).orElseThrow()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> tries.size() >= 12 || !held.guard().stillHeld());
        }
        assertThat(tries).as("tries before the local deadline").hasSizeGreaterThanOrEqualTo(8);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < tries.size(); i++) {
            gaps.add(tries.get(i) - tries.get(i - 1));
        }
        // A scheduler that runs late only lengthens a gap; a fixed period never gives one under it.
        assertThat(gaps).as("gaps in ns, period %d", period).allSatisfy(gap -> assertThat(gap).isGreaterThanOrEqualTo(period / 2))
                .anySatisfy(gap -> assertThat(gap).isLessThan(period * 8 / 10));
        assertThat(HeldLease.retryDelay(TIMING.watchdogPeriod(), 0.0)).isEqualTo(TIMING.watchdogPeriod().dividedBy(2));
        assertThat(HeldLease.retryDelay(TIMING.watchdogPeriod(), 0.999)).isLessThan(TIMING.watchdogPeriod());
    }

    @Test
    void aRenewalThatHangsStillTripsTheGuardBeforeTheLocalDeadline() {
        FakeTicker clock = new FakeTicker();
        CountDownLatch hung = new CountDownLatch(1);
        LeaseStore hanging = grantingEveryone(lease -> {
            hung.countDown();
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return false;
        });
        try (HeldLease held = HeldLease.acquire(hanging, name(), "worker-a", TIMING, clock).orElseThrow()) {
            Work work = Work.start(held.guard());
            await().atMost(Duration.ofSeconds(20)).until(() -> hung.getCount() == 0);
            clock.advance(TIMING.ttl().minus(TIMING.margin()).minusMillis(1));
            assertThat(held.guard().stillHeld()).isTrue();

            clock.advance(Duration.ofMillis(1));
            work.awaitInterrupted();
            assertThat(held.guard().lostBecause()).hasValueSatisfying(reason -> assertThat(reason).contains("ran out"));
        }
    }

    @Test
    void aRenewalSlowerThanHalfTheMarginIsLoggedBeforeItCostsTheLease() {
        FakeTicker clock = new FakeTicker();
        LeaseStore slow = grantingEveryone(lease -> {
            clock.advance(TIMING.margin().dividedBy(2).plusMillis(1));
            return true;
        });
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger logger = (Logger) LoggerFactory.getLogger(HeldLease.class);
        logger.addAppender(log);
        try (HeldLease held = HeldLease.acquire(slow, name(), "worker-a", TIMING, clock).orElseThrow()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> log.list.stream()
                    .anyMatch(event -> event.getLevel() == Level.WARN && event.getFormattedMessage().contains("over half its 600 ms margin")));
            assertThat(held.guard().stillHeld()).isTrue();
        } finally {
            logger.detachAppender(log);
        }
    }

    /** How a store {@link #grantingEveryone} answers a renewal. */
    private interface Renewal {
        boolean renew(Lease lease);
    }

    /** A lease store that grants token 1 to every acquirer, renews as {@code renewal} says, and releases anything. */
    private static LeaseStore grantingEveryone(Renewal renewal) {
        return new LeaseStore() {
            @Override
            public Optional<Lease> acquire(String name, String holder, Duration ttl) {
                return Optional.of(new Lease(name, holder, 1, ttl));
            }

            @Override
            public boolean renew(Lease lease, Duration ttl) {
                return renewal.renew(lease);
            }

            @Override
            public boolean release(Lease lease) {
                return true;
            }
        };
    }

    /** A piece of work blocked on its own thread, cancelled only by an interrupt from the guard. */
    private static final class Work {
        final AtomicLong interruptedAt = new AtomicLong();
        final CountDownLatch interrupted = new CountDownLatch(1);

        static Work start(LeaseGuard guard) {
            Work work = new Work();
            Thread thread = new Thread(() -> {
                try {
                    Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                } catch (InterruptedException e) {
                    work.interruptedAt.set(System.nanoTime());
                    work.interrupted.countDown();
                }
            }, "long-write");
            thread.setDaemon(true);
            guard.interruptOnLoss(thread);
            thread.start();
            return work;
        }

        void awaitInterrupted() {
            await().atMost(Duration.ofSeconds(20)).until(() -> interrupted.getCount() == 0);
        }
    }
}
