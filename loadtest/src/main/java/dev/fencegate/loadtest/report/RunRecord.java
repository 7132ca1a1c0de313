package dev.fencegate.loadtest.report;

import dev.fencegate.loadtest.RunResult;

/** One run of the comparison; {@code offeredRate} is null for a saturation run. */
public record RunRecord(String target, String phase, int round, Double offeredRate, RunResult result,
                        GatewayCost gatewayCost) {

    public static final String SATURATION = "saturation";
    public static final String FIXED_RATE = "fixed-rate";

    public RunRecord withCommits(long commits, double overSeconds) {
        return new RunRecord(target, phase, round, offeredRate, result, gatewayCost.withCommits(commits, overSeconds));
    }

    boolean saturation() {
        return SATURATION.equals(phase);
    }
}
