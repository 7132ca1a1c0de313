package dev.fencegate.loadtest.report;

import java.util.List;
import java.util.Objects;

/** Folds the runs of every round into one summary per target. */
public final class Summaries {

    private Summaries() {
    }

    /** {@code background} may be null. */
    public static List<TargetSummary> of(List<TargetLabel> targets, List<RunRecord> runs, LatencySeries series,
                                         Background background) {
        return targets.stream().map(label -> summarize(label, runsOf(label, runs), series, background)).toList();
    }

    private static List<RunRecord> runsOf(TargetLabel label, List<RunRecord> runs) {
        return runs.stream().filter(run -> run.target().equals(label.target())).toList();
    }

    private static TargetSummary summarize(TargetLabel label, List<RunRecord> runs, LatencySeries series,
                                           Background background) {
        List<RunRecord> saturation = runs.stream().filter(RunRecord::saturation).toList();
        double[] throughputs = saturation.stream().mapToDouble(run -> run.result().throughput()).sorted().toArray();
        TargetSummary.Saturation saturated = throughputs.length == 0 ? null : new TargetSummary.Saturation(
                median(throughputs), throughputs[0], throughputs[throughputs.length - 1],
                series.summary(label.target(), null), errors(saturation));
        List<TargetSummary.RatePoint> points = runs.stream()
                .filter(run -> !run.saturation())
                .map(RunRecord::offeredRate)
                .distinct().sorted()
                .map(rate -> ratePoint(label, rate, runs, series))
                .toList();
        List<GatewayCost> costs = runs.stream().map(RunRecord::gatewayCost).filter(Objects::nonNull).toList();
        return new TargetSummary(label.target(), label.store(), label.route(), saturated, points,
                costPerWrite(costs, background));
    }

    private static TargetSummary.RatePoint ratePoint(TargetLabel label, double rate, List<RunRecord> runs,
                                                     LatencySeries series) {
        List<RunRecord> atRate = runs.stream()
                .filter(run -> !run.saturation() && Objects.equals(run.offeredRate(), rate))
                .toList();
        double throughput = atRate.stream().mapToDouble(run -> run.result().throughput()).average().orElse(0);
        return new TargetSummary.RatePoint(rate, Math.round(throughput * 10) / 10.0,
                series.summary(label.target(), rate), errors(atRate));
    }

    static TargetSummary.CostPerWrite costPerWrite(List<GatewayCost> costs, Background background) {
        long writes = costs.stream().mapToLong(GatewayCost::writes).sum();
        if (writes == 0) {
            return null;
        }
        double postgresMillis = costs.stream().mapToDouble(GatewayCost::postgresCpuMillis).sum();
        double seconds = costs.stream().mapToDouble(GatewayCost::seconds).sum();
        Double postgresNet = background == null ? null
                : round3((postgresMillis - background.postgresCpuMillisPerSecond() * seconds) * 1000 / writes);
        List<GatewayCost> counted = costs.stream().filter(cost -> cost.commits() != null).toList();
        long countedWrites = counted.stream().mapToLong(GatewayCost::writes).sum();
        long commits = counted.stream().mapToLong(GatewayCost::commits).sum();
        double commitSeconds = counted.stream().mapToDouble(GatewayCost::commitSeconds).sum();
        Double perWrite = countedWrites == 0 ? null : round3(commits / (double) countedWrites);
        Double net = countedWrites == 0 || background == null || background.commitsPerSecond() == null ? null
                : round3((commits - background.commitsPerSecond() * commitSeconds) / countedWrites);
        List<GatewayCost> durable = costs.stream().filter(cost -> cost.fenceCommits() != null).toList();
        long durableWrites = durable.stream().mapToLong(GatewayCost::writes).sum();
        Double durablePerWrite = durableWrites == 0 ? null
                : round3(durable.stream().mapToLong(GatewayCost::fenceCommits).sum() / (double) durableWrites);
        long maxRssKb = costs.stream().mapToLong(GatewayCost::gatewayRssKbAfter).max().orElse(0);
        return new TargetSummary.CostPerWrite(
                round3(costs.stream().mapToDouble(GatewayCost::gatewayCpuMillis).sum() * 1000 / writes),
                round3(postgresMillis * 1000 / writes), postgresNet, perWrite, net, durablePerWrite,
                Math.round(maxRssKb / 1024.0 * 10) / 10.0);
    }

    private static long errors(List<RunRecord> runs) {
        return runs.stream().mapToLong(run -> run.result().counts().errors()).sum();
    }

    static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double round3(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
