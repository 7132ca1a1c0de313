package dev.fencegate.config;

import java.time.Duration;
import java.util.Optional;

/**
 * What operators use to watch and steer a gateway.
 *
 * @param accessLog  one JSON line per request to the {@code fencegate.access} logger, or none
 * @param adminToken the bearer token the admin port's fence endpoints require; empty for none
 * @param multipartUploadLifetime how long a multipart upload's id is known after its creation; an older upload's
 *                   steps get 403 and its record is deleted
 */
public record OperationsConfig(AccessLogFormat accessLog, String adminToken, Duration multipartUploadLifetime) {

    public static final Duration DEFAULT_MULTIPART_UPLOAD_LIFETIME = Duration.ofDays(7);
    /** Far enough from PostgreSQL's timestamp range that {@code now()} minus it is always a time. */
    private static final Duration LONGEST_MULTIPART_UPLOAD_LIFETIME = Duration.ofDays(36_500);

    public OperationsConfig {
        if (accessLog == null) {
            throw new IllegalArgumentException("--access-log: null (expected json or off)");
        }
        adminToken = adminToken == null ? "" : adminToken;
        if (!adminToken.isEmpty() && !adminToken.matches("[\\x21-\\x7E]{16,512}")) {
            throw new IllegalArgumentException("--admin-token: (hidden, " + adminToken.length()
                    + " characters) (expected 16 to 512 visible ASCII characters, no spaces)");
        }
        if (multipartUploadLifetime == null || multipartUploadLifetime.compareTo(Duration.ofMinutes(1)) < 0
                || multipartUploadLifetime.compareTo(LONGEST_MULTIPART_UPLOAD_LIFETIME) > 0) {
            throw new IllegalArgumentException("--multipart-upload-lifetime: "
                    + (multipartUploadLifetime == null ? "missing" : Durations.format(multipartUploadLifetime))
                    + " (expected 1m to 36500d)");
        }
    }

    public OperationsConfig(AccessLogFormat accessLog, String adminToken) {
        this(accessLog, adminToken, DEFAULT_MULTIPART_UPLOAD_LIFETIME);
    }

    public static OperationsConfig defaults() {
        return new OperationsConfig(AccessLogFormat.OFF, "");
    }

    public Optional<String> adminTokenIfSet() {
        return adminToken.isEmpty() ? Optional.empty() : Optional.of(adminToken);
    }

    /** Never the token itself: records print their components. */
    @Override
    public String toString() {
        return "OperationsConfig[accessLog=" + accessLog + ", adminToken=" + (adminToken.isEmpty() ? "none" : "set")
                + ", multipartUploadLifetime=" + Durations.format(multipartUploadLifetime) + "]";
    }
}
