package dev.fencegate.loadtest.report;

/**
 * What one gateway run cost, warm-up included: CPU of the gateway process and of all PostgreSQL
 * server processes over {@code seconds}, and the database's commits over a settled window of
 * {@code commitSeconds} around the run ({@code null} when the database was not readable).
 */
public record GatewayCost(long writes, double seconds, double gatewayCpuMillis, double postgresCpuMillis,
                          Long commits, Double commitSeconds, long gatewayRssKbBefore, long gatewayRssKbAfter) {

    public GatewayCost withCommits(long counted, double overSeconds) {
        return new GatewayCost(writes, seconds, gatewayCpuMillis, postgresCpuMillis, counted, overSeconds,
                gatewayRssKbBefore, gatewayRssKbAfter);
    }
}
