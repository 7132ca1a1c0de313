package dev.fencegate.admin;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this instance should receive writes: the fence store answers, the schema is migrated,
 * the data port is serving and the instance is not shutting down. Once serving, each change
 * between ready and not is logged, so the line that said NOT READY at start (or later) has its
 * answer when the cause is fixed; the start's own line says the first state, and shutting down
 * says itself.
 */
public final class Readiness {

    private static final Logger log = LoggerFactory.getLogger(Readiness.class);

    /** The state last told (at start by the start's own line); guarded by {@code this}. */
    private boolean toldReady;
    private volatile boolean migrated;
    private volatile boolean fenceStoreReachable;
    private volatile boolean serving;
    private volatile boolean draining;
    private volatile String lastProblem = "starting";

    public void migrated() {
        migrated = true;
        tell();
    }

    /**
     * The data port serves. Returns whether the instance is ready now, for the start's own line to
     * tell; later changes are logged here.
     */
    public synchronized boolean serving() {
        serving = true;
        toldReady = ready();
        return toldReady;
    }

    public void draining() {
        draining = true;
    }

    public void fenceStoreReachable(boolean reachable, String problem) {
        if (!reachable) {
            lastProblem = problem;
        }
        fenceStoreReachable = reachable;
        tell();
    }

    private synchronized void tell() {
        boolean ready = ready();
        if (!serving || draining || ready == toldReady) {
            return;
        }
        toldReady = ready;
        if (ready) {
            log.info("Fencegate ready again: writes are checked and forwarded, /readyz 200");
        } else {
            log.warn("Fencegate NOT READY: {}; writes get 503 and /readyz 503 until that is fixed",
                    describe().replaceFirst("^not ready: ", ""));
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
                    : "not ready: fence store unavailable (" + lastProblem + ")";
        }
        return "not ready: data port not serving yet";
    }
}
