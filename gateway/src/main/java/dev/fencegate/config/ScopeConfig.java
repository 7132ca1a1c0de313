package dev.fencegate.config;

/**
 * Which paths share one fence: comma-separated path templates such as
 * {@code /{bucket}/jobs/{job}/**}, and whether a write under none of them is refused.
 */
public record ScopeConfig(String templates, boolean refuseUnscoped) {

    public ScopeConfig {
        templates = templates == null ? "" : templates.strip();
    }

    public static ScopeConfig none() {
        return new ScopeConfig("", true);
    }

    /** {@code refuse} or {@code per-object}, as the --unscoped-writes setting is written. */
    public static boolean refuses(String unscopedWrites) {
        return switch (unscopedWrites) {
            case "refuse" -> true;
            case "per-object" -> false;
            default -> throw new IllegalArgumentException("--unscoped-writes: '" + unscopedWrites + "' (expected refuse or per-object)");
        };
    }
}
