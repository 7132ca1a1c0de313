package dev.fencegate.config;

/** Bounds on what one client may send; past them the request is answered and the connection closed. */
public record Limits(int maxInitialLineLength, int maxHeaderSize, long maxBodySize) {

    public Limits {
        if (maxInitialLineLength < 256) {
            throw new IllegalArgumentException("--max-uri-length: " + maxInitialLineLength + " (expected at least 256)");
        }
        if (maxHeaderSize < 1_024) {
            throw new IllegalArgumentException("--max-header-size: " + maxHeaderSize + " (expected at least 1024)");
        }
        if (maxBodySize < 0) {
            throw new IllegalArgumentException("max body size: " + maxBodySize + " (expected 0 for no limit, or more)");
        }
    }

    public static Limits defaults() {
        return new Limits(8_192, 16_384, 0);
    }
}
