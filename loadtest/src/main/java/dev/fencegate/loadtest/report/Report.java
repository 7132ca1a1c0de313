package dev.fencegate.loadtest.report;

import java.util.List;
import java.util.Map;

/** Everything a comparison found; written as report.json, report.md and latency.svg. {@code background} may be null. */
public record Report(String title, String startedAt, Map<String, String> setup, List<String> notes,
                     Background background, List<TargetSummary> targets, List<RunRecord> runs) {

    public Report {
        setup = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(setup));
        notes = List.copyOf(notes);
        targets = List.copyOf(targets);
        runs = List.copyOf(runs);
    }
}
