package dev.fencegate.proxy;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.http.Outcome;
import dev.fencegate.observability.AccessLog;
import dev.fencegate.observability.GatewayMetrics;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;

/**
 * What one request did, filled in as it goes, for the metrics and the access log. Lives on the
 * connection's event loop with the request; written out once, when the request is answered.
 */
final class RequestRecord {

    private final GatewayMetrics metrics;
    private final AccessLog accessLog;
    private final String method;
    private final String path;
    private final long startNanos = System.nanoTime();
    private Timer.Sample fenceSample;
    private Timer.Sample storeSample;
    private Duration fenceCheck;
    private Duration store;
    private Long token;
    private String resource;
    /** How many resources a write of several named (DeleteObjects); null for a write of one. */
    private Integer resources;
    private FenceDecision decision;
    private boolean written;
    private boolean finished;

    RequestRecord(GatewayMetrics metrics, AccessLog accessLog, String method, String path) {
        this.metrics = metrics;
        this.accessLog = accessLog;
        this.method = method;
        this.path = path;
    }

    void fenceAsked(FenceClaim asked) {
        token = asked.token().value();
        resource = asked.resource().value();
        fenceSample = metrics.startFenceCheck();
    }

    /** A write of several resources at one token (DeleteObjects), asked of the fence one after another. */
    void fenceAskedForAll(List<FenceClaim> asked) {
        token = asked.get(0).token().value();
        resources = asked.size();
        fenceSample = metrics.startFenceCheck();
    }

    /**
     * The answer for a write of several, once: the resource named is the one refused, none when
     * every one was admitted. Each resource's decision was counted as it came.
     */
    void fenceAnsweredForAll(FenceBatch.Result result) {
        decision = !result.allAdmitted() ? result.refusal() : result.admitted().isEmpty() ? null : result.admitted().get(0);
        resource = result.allAdmitted() ? null : refusedResource(result.refusal());
        if (fenceSample != null && decision != null) {
            fenceCheck = metrics.recordFenceCheck(fenceSample, decision);
            fenceSample = null;
        }
    }

    private static String refusedResource(FenceDecision refusal) {
        if (refusal instanceof FenceDecision.Stale stale) {
            return stale.claim().resource().value();
        }
        if (refusal instanceof FenceDecision.Reused reused) {
            return reused.claim().resource().value();
        }
        if (refusal instanceof FenceDecision.Draining draining) {
            return draining.claim().resource().value();
        }
        return null;
    }

    void fenceAnswered(FenceDecision answer) {
        decision = answer;
        metrics.fenceDecision(answer);
        if (fenceSample != null) {
            fenceCheck = metrics.recordFenceCheck(fenceSample, answer);
            fenceSample = null;
        }
    }

    void storeAsked() {
        storeSample = metrics.startStoreExchange();
    }

    /** The store answered; {@code status} is its status code. */
    void forwarded(int status) {
        finished = true;
        metrics.forwarded(method);
        stopStore(Outcome.FORWARDED);
        write(Outcome.FORWARDED, status);
    }

    /** The gateway answered, with a refusal or a failure of the store. */
    void answered(Outcome outcome) {
        finished = true;
        metrics.refused(method, outcome);
        stopStore(outcome);
        write(outcome, outcome.status());
    }

    /**
     * The client went away before its answer: the request is still counted and logged, as a write
     * that reached the store may have been applied.
     */
    void clientClosed() {
        if (!finished) {
            answered(Outcome.CLIENT_CLOSED);
        }
    }

    private void stopStore(Outcome outcome) {
        if (storeSample != null) {
            store = metrics.recordStoreExchange(storeSample, method, outcome);
            storeSample = null;
        }
    }

    private void write(Outcome outcome, int status) {
        if (written || !accessLog.enabled()) {
            return;
        }
        written = true;
        Long current = switch (decision == null ? FenceDecision.Kind.MISSING_TOKEN : decision.kind()) {
            case STALE -> ((FenceDecision.Stale) decision).current().token().value();
            case REUSED -> ((FenceDecision.Reused) decision).current().token().value();
            case DRAINING -> ((FenceDecision.Draining) decision).current().token().value();
            case ADMITTED, MISSING_TOKEN, MALFORMED_TOKEN, MALFORMED_HOLDER, UNAVAILABLE -> null;
        };
        accessLog.record(new AccessLog.Entry(method, path, outcome.tag(), status,
                token, current, resource, resources,
                fenceCheck, store, Duration.ofNanos(System.nanoTime() - startNanos)));
    }
}
