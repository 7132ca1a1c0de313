package dev.fencegate.loadtest.report;

import dev.fencegate.loadtest.LatencySummary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A small report with recognisable numbers. */
final class ReportFixture {

    private ReportFixture() {
    }

    static Report report() {
        TargetSummary direct = new TargetSummary("discard direct", "discard", "direct",
                new TargetSummary.Saturation(93_412, 91_000, 95_000, latency(0.311, 4.2), 0),
                List.of(point(5_000, 0.123, 0.456), point(10_000, 0.135, 0.789), point(15_000, 0.150, 1.25)),
                null);
        TargetSummary gateway = new TargetSummary("discard via gateway", "discard", "via gateway",
                new TargetSummary.Saturation(20_123, 19_500, 20_400, latency(1.5, 12.5), 3),
                List.of(point(5_000, 0.912, 2.34), point(10_000, 1.07, 5.67), point(15_000, 2.2, 48.9)),
                new TargetSummary.CostPerWrite(41.5, 38.25, 35.5, 1.04, 1.0, 0.125, 187.5));
        Map<String, String> setup = new LinkedHashMap<>();
        setup.put("machine", "2 cores");
        setup.put("load", "PUT, 4096-byte bodies");
        return new Report("Fencegate comparison", "2026-01-02T03:04:05Z", setup,
                List.of("nginx not found: left out <webdav> & the proxy."), new Background(6.5, 2.0, 15.25),
                List.of(direct, gateway), List.of());
    }

    /** The same report with the nginx proxy in front of the same store, at half the gateway's rates. */
    static Report withNginx() {
        Report report = report();
        TargetSummary nginx = new TargetSummary("discard via nginx", "discard", "via nginx",
                new TargetSummary.Saturation(40_246, 40_000, 41_000, latency(0.8, 3.5), 0),
                List.of(point(5_000, 0.2, 0.7), point(10_000, 0.25, 0.95), point(15_000, 0.3, 1.9)), null);
        List<TargetSummary> targets = new java.util.ArrayList<>(report.targets());
        targets.add(nginx);
        return new Report(report.title(), report.startedAt(), report.setup(), report.notes(), report.background(),
                targets, report.runs());
    }

    private static TargetSummary.RatePoint point(double rate, double p50, double p99) {
        return new TargetSummary.RatePoint(rate, rate, latency(p50, p99), 0);
    }

    private static LatencySummary latency(double p50, double p99) {
        return new LatencySummary(p50, p50 * 2, p99, p99 * 2, p99 * 3, p50 * 1.1);
    }
}
