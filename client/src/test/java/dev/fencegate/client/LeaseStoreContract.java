package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link LeaseStore} must do, whoever runs it: extend this with a store of yours. Names
 * are fresh per test, so one store may serve them all.
 */
abstract class LeaseStoreContract {

    static final Duration LONG = Duration.ofMinutes(5);
    private final ExecutorService racers = Executors.newFixedThreadPool(6);
    private LeaseStore leases;

    /** The store under test; expiry must be its own clock's, as a grant's ttl is. */
    protected abstract LeaseStore store();

    private LeaseStore leases() {
        if (leases == null) {
            leases = store();
        }
        return leases;
    }

    @AfterEach
    void stopRacers() {
        racers.shutdownNow();
    }

    static String name() {
        return "job-" + System.nanoTime();
    }

    @Test
    void tokensStrictlyIncreaseAcrossGrantsAndReleases() {
        String job = name();
        Lease first = leases().acquire(job, "worker-a", LONG).orElseThrow();
        assertThat(leases().acquire(job, "worker-b", LONG)).as("held by worker-a").isEmpty();
        assertThat(leases().release(first)).isTrue();
        Lease second = leases().acquire(job, "worker-b", LONG).orElseThrow();
        assertThat(leases().release(second)).isTrue();
        Lease third = leases().acquire(job, "worker-a", LONG).orElseThrow();

        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(third.token()).isGreaterThan(second.token());
        assertThat(third.holder()).isEqualTo("worker-a");
    }

    @Test
    void racingAcquirersGetOneGrantAtATimeAndNeverTheSameToken() throws Exception {
        String contested = name();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Optional<Lease>>> tries = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String holder = "racer-" + i;
            tries.add(racers.submit(() -> {
                go.await();
                return leases().acquire(contested, holder, LONG);
            }));
        }
        go.countDown();
        int granted = 0;
        for (Future<Optional<Lease>> attempt : tries) {
            granted += attempt.get(30, TimeUnit.SECONDS).isPresent() ? 1 : 0;
        }
        assertThat(granted).as("grants of an unexpired lease").isEqualTo(1);

        // Grants that expire at once, so every racer keeps winning: each number is handed out once.
        String churned = name();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<Future<?>> loops = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String holder = "churner-" + i;
            loops.add(racers.submit(() -> {
                for (int n = 0; n < 20; n++) {
                    leases().acquire(churned, holder, Duration.ofMillis(1)).ifPresent(lease -> tokens.add(lease.token()));
                }
                return null;
            }));
        }
        for (Future<?> loop : loops) {
            loop.get(60, TimeUnit.SECONDS);
        }
        assertThat(tokens).isNotEmpty().doesNotHaveDuplicates();
        assertThat(tokens.stream().mapToLong(Long::longValue).max().orElseThrow()).isEqualTo(tokens.size());
    }

    @Test
    void aLeaseExpiresByTheStoresClockAndItsHolderCanNoLongerRenewIt() {
        String job = name();
        Lease brief = leases().acquire(job, "worker-a", Duration.ofMillis(400)).orElseThrow();
        assertThat(leases().renew(brief, Duration.ofMillis(400))).isTrue();

        Lease next = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> leases().acquire(job, "worker-b", LONG), Optional::isPresent).orElseThrow();
        assertThat(next.token()).isGreaterThan(brief.token());
        assertThat(leases().renew(brief, LONG)).as("the old grant renewed after another was made").isFalse();
        assertThat(leases().renew(next, LONG)).isTrue();
    }

    @Test
    void anExpiredGrantIsNotRenewedEvenBeforeAnotherHolderComes() throws InterruptedException {
        Lease brief = leases().acquire(name(), "worker-a", Duration.ofMillis(100)).orElseThrow();
        Thread.sleep(400);
        assertThat(leases().renew(brief, LONG)).isFalse();
    }

    @Test
    void onlyTheHolderOfTheCurrentGrantReleasesIt() {
        String job = name();
        Lease held = leases().acquire(job, "worker-a", LONG).orElseThrow();
        assertThat(leases().release(new Lease(job, "worker-b", held.token(), LONG))).as("another holder").isFalse();
        assertThat(leases().release(new Lease(job, "worker-a", held.token() + 1, LONG))).as("another grant").isFalse();
        assertThat(leases().acquire(job, "worker-b", LONG)).as("still held").isEmpty();

        assertThat(leases().release(held)).isTrue();
        assertThat(leases().release(held)).as("released twice").isFalse();
        assertThat(leases().acquire(job, "worker-b", LONG)).isPresent();
    }
}
