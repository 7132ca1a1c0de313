package dev.fencegate.loadtest.report;

import dev.fencegate.loadtest.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes report.json, report.md and latency.svg into one folder. */
public final class ReportFiles {

    private ReportFiles() {
    }

    public static void write(Report report, Path dir) throws IOException {
        Files.createDirectories(dir);
        Json.MAPPER.writeValue(dir.resolve("report.json").toFile(), report);
        Files.writeString(dir.resolve("report.md"), MarkdownReport.render(report));
        Files.writeString(dir.resolve("latency.svg"),
                SvgLatencyChart.render(report.title() + ": latency against offered rate", report.targets()));
    }
}
