package dev.fencegate.loadtest.compare;

import dev.fencegate.loadtest.report.Background;
import dev.fencegate.loadtest.report.GatewayCost;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Samples a gateway's CPU and memory, its own count of durable fence commits, and PostgreSQL's
 * CPU around each gateway run. The database's transactions are counted between settled readings:
 * the reading taken before one gateway run closes the previous one, since no other target writes
 * the database in between. The stretch before the first gateway run, with the gateways idle,
 * measures the background.
 */
final class GatewayMeter implements AutoCloseable {
    /** Hears a run's commit count and the seconds it was counted over. */
    interface CommitSink {
        void accept(long commits, double seconds);
    }

    private record Reading(long commits, long atNanos, Map<Long, Double> postgresCpuMillis) {
    }

    record Before(RunningGateway gateway, long atNanos, double gatewayCpuMillis, long rssKb,
                  Map<Long, Double> postgresCpuMillis, OptionalLong fenceCommits) {
    }

    private final ProcStats proc = ProcStats.load();
    private final Optional<PgCommitCounter> pg;
    private long quietSinceNanos = System.nanoTime();
    private Reading baselineStart;
    private Background background;
    private Reading open;
    private CommitSink openRun;

    GatewayMeter(Optional<PgCommitCounter> pg) {
        this.pg = pg;
    }

    boolean countsCommits() {
        return pg.isPresent();
    }

    Optional<Background> background() {
        return Optional.ofNullable(background);
    }

    /** Call before the first run; waits until the gateways' start-up commits are published. */
    void startBaseline() throws InterruptedException {
        baselineStart = settledReading();
    }

    Before before(RunningGateway gateway, CommitSink commitsOfRun) throws InterruptedException {
        Reading reading = settledReading();
        closeBaseline(reading);
        closeOpenRun(reading);
        open = reading;
        openRun = commitsOfRun;
        long pid = gateway.process().pid();
        OptionalLong fenceCommits = gateway.fenceCommits().commits();
        return new Before(gateway, System.nanoTime(), proc.cpuMillis(pid), proc.rssKb(pid), proc.postgresCpuMillis(),
                fenceCommits);
    }

    GatewayCost after(Before before, long writes) throws InterruptedException {
        quietSinceNanos = System.nanoTime();
        long pid = before.gateway().process().pid();
        double gatewayCpuMillis = proc.cpuMillis(pid) - before.gatewayCpuMillis();
        double postgresCpuMillis = ProcStats.cpuBetween(before.postgresCpuMillis(), proc.postgresCpuMillis());
        OptionalLong fenceCommits = before.gateway().fenceCommits().commits();
        Long fenceCommitsOfRun = before.fenceCommits().isPresent() && fenceCommits.isPresent()
                ? fenceCommits.getAsLong() - before.fenceCommits().getAsLong() : null;
        return new GatewayCost(writes, (quietSinceNanos - before.atNanos()) / 1e9, gatewayCpuMillis, postgresCpuMillis,
                null, null, fenceCommitsOfRun, before.rssKb(), proc.rssKb(pid));
    }

    /** Takes the last settled reading, so the last gateway run gets its commits too. */
    void finish() throws InterruptedException {
        if (openRun != null) {
            closeOpenRun(settledReading());
        }
    }

    @Override
    public void close() {
        pg.ifPresent(PgCommitCounter::close);
    }

    private void closeBaseline(Reading reading) {
        if (baselineStart != null) {
            double seconds = (reading.atNanos() - baselineStart.atNanos()) / 1e9;
            if (seconds >= 1) {
                background = new Background(Math.round(seconds * 10) / 10.0,
                        pg.isEmpty() ? null : (reading.commits() - baselineStart.commits()) / seconds,
                        ProcStats.cpuBetween(baselineStart.postgresCpuMillis(), reading.postgresCpuMillis()) / seconds);
            }
        }
        baselineStart = null;
    }

    private void closeOpenRun(Reading reading) {
        if (openRun != null && pg.isPresent()) {
            openRun.accept(reading.commits() - open.commits(), (reading.atNanos() - open.atNanos()) / 1e9);
        }
        openRun = null;
    }

    private Reading settledReading() throws InterruptedException {
        if (pg.isEmpty()) {
            return new Reading(0, System.nanoTime(), proc.postgresCpuMillis());
        }
        long waitMillis = PgCommitCounter.SETTLE_MILLIS - (System.nanoTime() - quietSinceNanos) / 1_000_000;
        if (waitMillis > 0) {
            Thread.sleep(waitMillis);
        }
        return new Reading(pg.get().commits(), System.nanoTime(), proc.postgresCpuMillis());
    }
}
