package dev.fencegate.config;

import java.util.Locale;

/** Whether each request is logged, and how: one JSON object per line, or nothing. */
public enum AccessLogFormat {
    JSON, OFF;

    public static AccessLogFormat parse(String text) {
        return switch (text) {
            case "json" -> JSON;
            case "off" -> OFF;
            default -> throw new IllegalArgumentException("'" + text + "' (expected json or off)");
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
