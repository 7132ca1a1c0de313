package dev.fencegate.http;

import dev.fencegate.fence.FenceDecision;

/**
 * The single table from what happened to a request to its HTTP status, problem type, metric
 * tag and S3 error code. Nothing else in the gateway picks a status code.
 */
public enum Outcome {
    FORWARDED(0, "forwarded", "Forwarded to the store", ""),
    STALE_TOKEN(412, "stale-token", "Fencing token is below the fence", "FencingTokenStale"),
    REUSED_TOKEN(412, "reused-token", "Fencing token was granted to another holder", "FencingTokenReused"),
    MISSING_TOKEN(428, "missing-token", "Fencing token required", "FencingTokenMissing"),
    MALFORMED_TOKEN(400, "malformed-token", "Malformed fencing token", "FencingTokenMalformed"),
    UNSIGNED_TOKEN(401, "unsigned-token", "Fencing token not signed by its issuer", "FencingTokenUnsigned"),
    BAD_TOKEN_SIGNATURE(403, "bad-token-signature", "Fencing token signature does not match", "FencingTokenSignatureMismatch"),
    OUTSIDE_EVERY_SCOPE(403, "outside-every-scope", "Write outside every configured resource scope", "FencegateOutsideEveryScope"),
    MALFORMED_HOLDER(400, "malformed-holder", "Malformed fencing holder", "FencingHolderMalformed"),
    AMBIGUOUS_PATH(400, "ambiguous-path", "Ambiguous resource path", "FencegateAmbiguousPath"),
    AMBIGUOUS_HOST(400, "ambiguous-host", "Bucket named by the Host header", "FencegateVirtualHostStyle"),
    BAD_REQUEST(400, "bad-request", "Malformed request", "FencegateBadRequest"),
    BUCKET_POST(400, "bucket-post", "POST to a bucket is not served, except DeleteObjects", "FencegateBucketPostRefused"),
    UNFENCEABLE_WRITE(400, "unfenceable-write", "Write that changes objects other than the one it names", "FencegateUnfenceableWrite"),
    BODY_ON_READ(400, "body-on-read", "GET, HEAD and OPTIONS may not carry a body", "FencegateBodyOnRead"),
    BODY_ON_DELETE(400, "body-on-delete", "DELETE may not carry a body", "FencegateBodyOnDelete"),
    OVERRIDE_HEADER(400, "override-header", "A header that overrides the method or path is not served", "FencegateOverrideHeader"),
    FOREIGN_UPLOAD(403, "foreign-upload", "Upload id not created for this object through the gateway", "FencegateUploadNotForThisKey"),
    METHOD_NOT_ALLOWED(405, "method-not-allowed", "Method not allowed", "FencegateMethodNotAllowed"),
    REQUEST_TIMEOUT(408, "request-timeout", "Request not received in time", "FencegateClientTimeout"),
    PAYLOAD_TOO_LARGE(413, "payload-too-large", "Request body too large", "FencegateBodyTooLarge"),
    URI_TOO_LONG(414, "uri-too-long", "Request target too long", "FencegateUriTooLong"),
    EXPECTATION_FAILED(417, "expectation-failed", "Unsupported expectation", "FencegateExpectationFailed"),
    HEADERS_TOO_LARGE(431, "headers-too-large", "Request header fields too large", "FencegateHeadersTooLarge"),
    FENCE_UNAVAILABLE(503, "fence-unavailable", "Fence store unavailable; write refused", "FencegateFenceUnavailable"),
    FENCE_DRAINING(503, "lower-token-in-flight", "A lower-token write to this resource is still in flight", "FencegateLowerTokenInFlight"),
    ADMISSION_EXPIRED(503, "admission-expired", "Write admitted but not sent in time", "FencegateAdmissionExpired"),
    BODIES_BUSY(503, "bodies-busy", "Too many request bodies held for checking at once; retry", "FencegateBodiesBusy"),
    STORE_UNREACHABLE(502, "store-unreachable", "Store unreachable", "FencegateStoreUnreachable"),
    STORE_ANSWER_UNREADABLE(502, "store-answer-unreadable", "Store answer could not be read", "FencegateStoreAnswerUnreadable"),
    STORE_TIMEOUT(504, "store-timeout", "Store did not answer in time", "FencegateStoreTimeout"),
    VERSION_NOT_SUPPORTED(505, "version-not-supported", "HTTP version not supported", "FencegateVersionNotSupported"),
    /** Logged and counted only: the client is gone, so nothing is sent (nginx's 499). */
    CLIENT_CLOSED(499, "client-closed", "Client closed its connection before the answer", "FencegateClientClosed");

    private static final String TYPE_PREFIX = "urn:fencegate:problem:";

    private final int status;
    private final String tag;
    private final String title;
    private final String s3Code;

    Outcome(int status, String tag, String title, String s3Code) {
        this.status = status;
        this.tag = tag;
        this.title = title;
        this.s3Code = s3Code;
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

    /**
     * The {@code <Code>} of the S3-style error an S3 client gets. None is a code the AWS SDKs
     * retry on a 4xx (RequestTimeout, Throttling, SlowDown, RequestTimeTooSkewed...): a refused
     * write must fail at once, not be sent again.
     */
    public String s3Code() {
        return s3Code;
    }

    public String problemType() {
        return TYPE_PREFIX + tag;
    }

    public static Outcome of(FenceDecision decision) {
        return switch (decision.kind()) {
            case ADMITTED -> FORWARDED;
            case STALE -> STALE_TOKEN;
            case REUSED -> REUSED_TOKEN;
            case DRAINING -> FENCE_DRAINING;
            case MISSING_TOKEN -> MISSING_TOKEN;
            case MALFORMED_TOKEN -> MALFORMED_TOKEN;
            case MALFORMED_HOLDER -> MALFORMED_HOLDER;
            case UNAVAILABLE -> FENCE_UNAVAILABLE;
        };
    }
}
