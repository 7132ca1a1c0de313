package dev.fencegate.loadtest.report;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The figures a workload is judged by, one row per store: the gateway's saturation throughput
 * against the nginx proxy's, what a write costs the gateway and PostgreSQL (CPU, durable commits by
 * the gateway's count, transactions by the database's), and p99 at the fixed rate nearest half the
 * store's slowest saturation throughput. Null where a figure is missing.
 */
public record Headline(String store, double gatewayThroughput, Double ratioToNginx, Double gatewayCpuMicros,
                       Double postgresCpuMicros, Double durableCommitsPerWrite, Double transactionsPerWrite,
                       Double halfSaturationRate, Double gatewayP99Ms, Double nginxP99Ms) {

    static final String GATEWAY = "via gateway";
    static final String NGINX = "via nginx";

    public static List<Headline> of(List<TargetSummary> targets) {
        return targets.stream()
                .filter(t -> t.route().equals(GATEWAY) && t.saturation() != null)
                .map(gateway -> of(gateway, targets.stream().filter(t -> t.store().equals(gateway.store())).toList()))
                .toList();
    }

    private static Headline of(TargetSummary gateway, List<TargetSummary> sameStore) {
        Optional<TargetSummary> nginx = sameStore.stream().filter(t -> t.route().equals(NGINX))
                .filter(t -> t.saturation() != null).findFirst();
        double slowest = sameStore.stream().filter(t -> t.saturation() != null)
                .mapToDouble(t -> t.saturation().medianThroughput()).min().orElse(0);
        Optional<Double> half = gateway.rates().stream().map(TargetSummary.RatePoint::offeredRate)
                .min(Comparator.comparingDouble(rate -> Math.abs(rate - slowest / 2)));
        TargetSummary.CostPerWrite cost = gateway.costPerWrite();
        double throughput = gateway.saturation().medianThroughput();
        return new Headline(gateway.store(), throughput,
                nginx.map(n -> Math.round(throughput / n.saturation().medianThroughput() * 1000) / 1000.0).orElse(null),
                cost == null ? null : cost.gatewayCpuMicros(),
                cost == null ? null : Objects.requireNonNullElse(cost.postgresCpuMicrosNet(), cost.postgresCpuMicros()),
                cost == null ? null : cost.durableCommits(),
                cost == null ? null : cost.transactionsNet() != null ? cost.transactionsNet() : cost.transactions(),
                half.orElse(null), half.flatMap(rate -> p99At(gateway, rate)).orElse(null),
                half.flatMap(rate -> nginx.flatMap(n -> p99At(n, rate))).orElse(null));
    }

    private static Optional<Double> p99At(TargetSummary target, double rate) {
        return target.rates().stream().filter(point -> point.offeredRate() == rate).findFirst()
                .map(point -> point.latencyMs().p99());
    }
}
