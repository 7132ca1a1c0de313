package dev.fencegate.config;

/**
 * How strict the gateway is about what an acknowledged fence means.
 *
 * @param allowUnsafeDurability serve writes even when the database settings can lose acknowledged commits
 * @param requireSyncStandby    refuse writes unless a synchronous standby confirms every commit
 * @param rememberedFences      how many resources each instance remembers the highest admitted token of
 */
public record SafetyConfig(boolean allowUnsafeDurability, boolean requireSyncStandby, int rememberedFences) {

    public SafetyConfig {
        if (rememberedFences < 1_000 || rememberedFences > 50_000_000) {
            throw new IllegalArgumentException("--remembered-fences: " + rememberedFences + " (expected 1000 to 50000000)");
        }
    }

    public static SafetyConfig defaults() {
        return new SafetyConfig(false, false, 100_000);
    }
}
