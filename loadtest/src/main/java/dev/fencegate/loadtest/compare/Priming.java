package dev.fencegate.loadtest.compare;

import java.time.Duration;

/**
 * How long one target is primed before anything is measured. A native server needs one run. A
 * gateway is a JVM: its JIT compiler threads compile the hot paths for tens of seconds of load on
 * two cores, and compile again what the end of a run (connections closing, the admin port read)
 * made them throw away. Measured in that time, a gateway pays for its start-up on the cores its
 * writes need. So a gateway is primed run after run until its compiler threads took at most
 * {@link #SETTLED_SHARE} of its CPU in {@link #SETTLED_RUNS} runs in a row (one quiet run can be a
 * lull between two bursts of compilation), for at most {@link #MAX_RUNS} runs.
 */
final class Priming {
    static final double SETTLED_SHARE = 0.10;
    static final int SETTLED_RUNS = 2;
    static final int MAX_RUNS = 10;

    private int runs;
    private int quietRuns;
    private double lastShare = Double.NaN;

    /** Takes one priming run's CPU of the gateway and of its JIT; answers whether to prime again. */
    boolean another(double gatewayCpuMillis, double jitCpuMillis) {
        runs++;
        lastShare = gatewayCpuMillis > 0 ? jitCpuMillis / gatewayCpuMillis : Double.NaN;
        quietRuns = lastShare <= SETTLED_SHARE ? quietRuns + 1 : 0;
        return !settled() && !Double.isNaN(lastShare) && runs < MAX_RUNS;
    }

    boolean settled() {
        return quietRuns >= SETTLED_RUNS;
    }

    int runs() {
        return runs;
    }

    /** What priming a gateway came to, for the report's notes. */
    String describe(String target, Duration each) {
        String primed = String.format("%s primed %d run%s of %d s", target, runs, runs == 1 ? "" : "s", each.toSeconds());
        if (Double.isNaN(lastShare)) {
            return primed + "; its CPU could not be read, so its JIT was not watched.";
        }
        String share = String.format("%.0f%%", 100 * lastShare);
        return settled()
                ? primed + ", until its JIT compiler threads took at most " + Math.round(100 * SETTLED_SHARE)
                        + "% of its CPU in " + SETTLED_RUNS + " runs in a row (" + share + " in the last)."
                : primed + ", the most; its JIT compiler threads still took " + share + " of its CPU in the last.";
    }
}
