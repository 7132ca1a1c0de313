package dev.fencegate.config;

/**
 * Which paths share one fence: comma-separated path templates such as
 * {@code /{bucket}/jobs/{job}/**}, whether a write under none of them is refused, and whether
 * this instance may change how the fences it shares with other instances are named (its scopes
 * among them) when that differs from the naming recorded beside them.
 */
public record ScopeConfig(String templates, boolean refuseUnscoped, boolean changeNaming) {

    public ScopeConfig {
        templates = templates == null ? "" : templates.strip();
    }

    /** Without changing the recorded naming. */
    public ScopeConfig(String templates, boolean refuseUnscoped) {
        this(templates, refuseUnscoped, false);
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
