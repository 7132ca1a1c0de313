package dev.fencegate.client;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The gateway's two answers that mean this holder is fenced out for good: 412 with S3 error code
 * {@code FencingTokenStale} or {@code FencingTokenReused} (to S3-signed requests), or problem type
 * {@code urn:fencegate:problem:stale-token} or {@code reused-token} (to the others).
 */
public enum FenceRefusal {
    /** A newer holder's token is on the resource. */
    STALE_TOKEN("FencingTokenStale", "urn:fencegate:problem:stale-token"),
    /** This token was granted to another holder too, as after a lease-store failover. */
    REUSED_TOKEN("FencingTokenReused", "urn:fencegate:problem:reused-token");

    public static final int STATUS = 412;

    private static final Pattern S3_CODE = Pattern.compile("<Code>\\s*([A-Za-z]+)\\s*</Code>");
    private static final Pattern PROBLEM_TYPE = Pattern.compile("\"type\"\\s*:\\s*\"([^\"]+)\"");

    private final String s3Code;
    private final String problemType;

    FenceRefusal(String s3Code, String problemType) {
        this.s3Code = s3Code;
        this.problemType = problemType;
    }

    public String s3Code() {
        return s3Code;
    }

    public String problemType() {
        return problemType;
    }

    public static Optional<FenceRefusal> ofS3Code(String code) {
        for (FenceRefusal refusal : values()) {
            if (refusal.s3Code.equals(code)) {
                return Optional.of(refusal);
            }
        }
        return Optional.empty();
    }

    public static Optional<FenceRefusal> ofProblemType(String type) {
        for (FenceRefusal refusal : values()) {
            if (refusal.problemType.equals(type)) {
                return Optional.of(refusal);
            }
        }
        return Optional.empty();
    }

    /** The refusal a 412 body names, as problem+json or as an S3 XML error; empty for any other 412. */
    public static Optional<FenceRefusal> inBody(String body) {
        Matcher type = PROBLEM_TYPE.matcher(body);
        if (type.find()) {
            return ofProblemType(type.group(1));
        }
        Matcher code = S3_CODE.matcher(body);
        return code.find() ? ofS3Code(code.group(1)) : Optional.empty();
    }
}
