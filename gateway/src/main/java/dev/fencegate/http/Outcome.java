package dev.fencegate.http;

import dev.fencegate.fence.FenceDecision;

/**
 * The single table from what happened to a request to its HTTP status, problem type and metric
 * tag. Nothing else in the gateway picks a status code.
 */
public enum Outcome {
    FORWARDED(0, "forwarded", "Forwarded to the store"),
    STALE_TOKEN(412, "stale-token", "Fencing token is below the fence"),
    REUSED_TOKEN(412, "reused-token", "Fencing token was granted to another holder"),
    MISSING_TOKEN(428, "missing-token", "Fencing token required"),
    MALFORMED_TOKEN(400, "malformed-token", "Malformed fencing token"),
    MALFORMED_HOLDER(400, "malformed-holder", "Malformed fencing holder"),
    AMBIGUOUS_PATH(400, "ambiguous-path", "Ambiguous resource path"),
    BAD_REQUEST(400, "bad-request", "Malformed request"),
    METHOD_NOT_ALLOWED(405, "method-not-allowed", "Method not allowed"),
    REQUEST_TIMEOUT(408, "request-timeout", "Request not received in time"),
    PAYLOAD_TOO_LARGE(413, "payload-too-large", "Request body too large"),
    URI_TOO_LONG(414, "uri-too-long", "Request target too long"),
    EXPECTATION_FAILED(417, "expectation-failed", "Unsupported expectation"),
    HEADERS_TOO_LARGE(431, "headers-too-large", "Request header fields too large"),
    FENCE_UNAVAILABLE(503, "fence-unavailable", "Fence store unavailable; write refused"),
    STORE_UNREACHABLE(502, "store-unreachable", "Store unreachable"),
    STORE_TIMEOUT(504, "store-timeout", "Store did not answer in time");

    private static final String TYPE_PREFIX = "urn:fencegate:problem:";

    private final int status;
    private final String tag;
    private final String title;

    Outcome(int status, String tag, String title) {
        this.status = status;
        this.tag = tag;
        this.title = title;
    }

    /** The status the gateway answers with; 0 for a request whose answer comes from the store. */
    public int status() {
        return status;
    }

    /** Metric tag and problem-type suffix. */
    public String tag() {
        return tag;
    }

    public String title() {
        return title;
    }

    public String problemType() {
        return TYPE_PREFIX + tag;
    }

    public static Outcome of(FenceDecision decision) {
        return switch (decision.kind()) {
            case ADMITTED -> FORWARDED;
            case STALE -> STALE_TOKEN;
            case REUSED -> REUSED_TOKEN;
            case MISSING_TOKEN -> MISSING_TOKEN;
            case MALFORMED_TOKEN -> MALFORMED_TOKEN;
            case MALFORMED_HOLDER -> MALFORMED_HOLDER;
            case UNAVAILABLE -> FENCE_UNAVAILABLE;
        };
    }
}
