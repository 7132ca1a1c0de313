package dev.fencegate.loadtest.report;

/** A target as the report names it. */
public record TargetLabel(String target, String store, String route) {
}
