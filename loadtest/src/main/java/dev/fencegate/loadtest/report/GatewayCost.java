package dev.fencegate.loadtest.report;

/**
 * What one gateway run cost, warm-up included: CPU of the gateway process and of all PostgreSQL
 * server processes over {@code seconds}; the database's transactions over a settled window of
 * {@code commitSeconds} around the run ({@code null} when the database was not readable); and the
 * commits the gateway's fence checks made during the run, each of which wrote and waited for the
 * WAL, by the gateway's own count ({@code null} when it could not be read).
 */
public record GatewayCost(long writes, double seconds, double gatewayCpuMillis, double postgresCpuMillis,
                          Long commits, Double commitSeconds, Long fenceCommits, long gatewayRssKbBefore,
                          long gatewayRssKbAfter) {

    public GatewayCost withCommits(long counted, double overSeconds) {
        return new GatewayCost(writes, seconds, gatewayCpuMillis, postgresCpuMillis, counted, overSeconds, fenceCommits,
                gatewayRssKbBefore, gatewayRssKbAfter);
    }
}
