package dev.fencegate.admin;

/**
 * Whether this instance should receive writes: the fence store answers, the schema is migrated,
 * the data port is serving and the instance is not shutting down.
 */
public final class Readiness {

    private volatile boolean migrated;
    private volatile boolean fenceStoreReachable;
    private volatile boolean serving;
    private volatile boolean draining;
    private volatile String lastProblem = "starting";

    public void migrated() {
        migrated = true;
    }

    public void serving() {
        serving = true;
    }

    public void draining() {
        draining = true;
    }

    public void fenceStoreReachable(boolean reachable, String problem) {
        fenceStoreReachable = reachable;
        if (!reachable) {
            lastProblem = problem;
        }
    }

    public boolean ready() {
        return migrated && fenceStoreReachable && serving && !draining;
    }

    /** One line for /readyz: what is missing, if anything. */
    public String describe() {
        if (ready()) {
            return "ready";
        }
        if (draining) {
            return "draining: shutting down";
        }
        if (!migrated) {
            return "not ready: fence schema not migrated yet (" + lastProblem + ")";
        }
        if (!fenceStoreReachable) {
            // A refusal (durability, naming) comes from a database that answered.
            return lastProblem.startsWith("writes refused") ? "not ready: " + lastProblem
                    : "not ready: fence store unreachable (" + lastProblem + ")";
        }
        return "not ready: data port not serving yet";
    }
}
