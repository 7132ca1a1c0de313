package dev.fencegate.config;

import java.util.Optional;

/**
 * What operators use to watch and steer a gateway.
 *
 * @param accessLog  one JSON line per request to the {@code fencegate.access} logger, or none
 * @param adminToken the bearer token the admin port's fence endpoints require; empty for none
 */
public record OperationsConfig(AccessLogFormat accessLog, String adminToken) {

    public OperationsConfig {
        if (accessLog == null) {
            throw new IllegalArgumentException("--access-log: null (expected json or off)");
        }
        adminToken = adminToken == null ? "" : adminToken;
        if (!adminToken.isEmpty() && !adminToken.matches("[\\x21-\\x7E]{16,512}")) {
            throw new IllegalArgumentException("--admin-token: (hidden, " + adminToken.length()
                    + " characters) (expected 16 to 512 visible ASCII characters, no spaces)");
        }
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
        return "OperationsConfig[accessLog=" + accessLog + ", adminToken=" + (adminToken.isEmpty() ? "none" : "set") + "]";
    }
}
