package dev.fencegate.loadtest.report;

import dev.fencegate.loadtest.LatencySummary;
import java.util.List;

/** One target over all rounds: saturation throughput, latency at each offered rate, gateway cost. */
public record TargetSummary(String target, String store, String route, Saturation saturation,
                            List<RatePoint> rates, CostPerWrite costPerWrite) {

    /** Throughput median and spread over rounds; latency from the rounds' merged histograms. */
    public record Saturation(double medianThroughput, double minThroughput, double maxThroughput,
                             LatencySummary latencyMs, long errors) {
    }

    public record RatePoint(double offeredRate, double throughput, LatencySummary latencyMs, long errors) {
    }

    /**
     * Null for targets without a gateway. PostgreSQL figures are server- and database-wide; the
     * net ones subtract the background rate. Transactions ({@code xact_commit}) count read-only
     * ones too and are null when PostgreSQL was not readable, net figures when no background was
     * measured. Durable commits are the gateway's own count of fence-check commits, each of which
     * wrote and waited for the WAL; null when no run's count could be read.
     */
    public record CostPerWrite(double gatewayCpuMicros, double postgresCpuMicros, Double postgresCpuMicrosNet,
                               Double transactions, Double transactionsNet, Double durableCommits,
                               double maxGatewayRssMiB) {
    }
}
