package dev.fencegate.loadtest.report;

import dev.fencegate.loadtest.LatencySummary;
import java.util.List;

/** report.md: the tables a reader compares, saturation apart from latency at fixed rates. */
public final class MarkdownReport {

    private MarkdownReport() {
    }

    public static String render(Report report) {
        StringBuilder md = new StringBuilder("# ").append(report.title()).append("\n\n");
        md.append("Started ").append(report.startedAt()).append(".\n\n");
        report.setup().forEach((key, value) -> md.append("- ").append(key).append(": ").append(value).append('\n'));
        headline(md, report);
        md.append("\n## Saturation (closed loop)\n\n");
        md.append("Median over rounds; a closed loop understates tail latency, so read latency below.\n\n");
        md.append("| target | req/s (median) | min to max | p50 ms | p99 ms | errors |\n");
        md.append("|---|---:|---:|---:|---:|---:|\n");
        for (TargetSummary target : report.targets()) {
            TargetSummary.Saturation s = target.saturation();
            if (s != null) {
                row(md, target.target(), Numbers.rate(s.medianThroughput()),
                        Numbers.rate(s.minThroughput()) + " to " + Numbers.rate(s.maxThroughput()),
                        Numbers.millis(s.latencyMs().p50()), Numbers.millis(s.latencyMs().p99()), Long.toString(s.errors()));
            }
        }
        md.append("\n## Latency at fixed offered rates (open loop, from intended send times)\n\n");
        md.append("![p50 and p99 latency against offered rate](latency.svg)\n\n");
        md.append("| target | offered req/s | achieved req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | errors |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (TargetSummary target : report.targets()) {
            for (TargetSummary.RatePoint point : target.rates()) {
                LatencySummary l = point.latencyMs();
                row(md, target.target(), Numbers.rate(point.offeredRate()), Numbers.rate(point.throughput()),
                        Numbers.millis(l.p50()), Numbers.millis(l.p90()), Numbers.millis(l.p99()),
                        Numbers.millis(l.p999()), Numbers.millis(l.max()), Long.toString(point.errors()));
            }
        }
        costs(md, report);
        if (!report.notes().isEmpty()) {
            md.append("\n## Notes\n\n");
            report.notes().forEach(note -> md.append("- ").append(note).append('\n'));
        }
        return md.toString();
    }

    private static void headline(StringBuilder md, Report report) {
        List<Headline> rows = Headline.of(report.targets());
        if (rows.isEmpty()) {
            return;
        }
        md.append("\n## Headline\n\n");
        md.append("PostgreSQL CPU and transactions net of the background where it was measured; durable commits ")
                .append("by the gateway's count (`fencegate_fence_commits_total`: commits that wrote and waited for ")
                .append("the WAL), transactions by the database's (`xact_commit`, read-only ones included); p99 at ")
                .append("the fixed rate nearest half the store's slowest saturation throughput.\n\n");
        md.append("| store | gateway req/s | ratio to nginx | gateway CPU µs/write | PostgreSQL CPU µs/write "
                + "| durable commits/write | transactions/write | offered req/s (half saturation) "
                + "| p99 ms via gateway | p99 ms via nginx |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Headline h : rows) {
            row(md, h.store(), Numbers.rate(h.gatewayThroughput()), orNa(h.ratioToNginx(), Numbers::plain),
                    orNa(h.gatewayCpuMicros(), Numbers::tenths), orNa(h.postgresCpuMicros(), Numbers::tenths),
                    orNa(h.durableCommitsPerWrite(), Numbers::plain), orNa(h.transactionsPerWrite(), Numbers::plain),
                    orNa(h.halfSaturationRate(), Numbers::rate),
                    orNa(h.gatewayP99Ms(), Numbers::millis), orNa(h.nginxP99Ms(), Numbers::millis));
        }
    }

    private static String orNa(Double value, java.util.function.DoubleFunction<String> format) {
        return value == null ? "n/a" : format.apply(value);
    }

    private static void costs(StringBuilder md, Report report) {
        List<TargetSummary> gateways = report.targets().stream().filter(t -> t.costPerWrite() != null).toList();
        if (gateways.isEmpty()) {
            return;
        }
        md.append("\n## Gateway cost per write (all gateway runs, warm-up included)\n\n");
        md.append("PostgreSQL figures count the whole server (CPU) and database (transactions); durable commits ")
                .append("are the gateway's own count; ");
        Background bg = report.background();
        if (bg == null) {
            md.append("no background was measured, so other clients of the server are included.\n\n");
        } else {
            md.append("in brackets, net of the background measured over ").append(Numbers.plain(bg.seconds()))
                    .append(" s while no gateway ran: ")
                    .append(bg.commitsPerSecond() == null ? "n/a" : Numbers.plain(bg.commitsPerSecond()))
                    .append(" transactions/s, ").append(Numbers.plain(bg.postgresCpuMillisPerSecond()))
                    .append(" ms PostgreSQL CPU/s.\n\n");
        }
        md.append("| target | gateway CPU µs/write | PostgreSQL CPU µs/write | durable commits/write | transactions/write "
                + "| gateway RSS MiB (max) |\n");
        md.append("|---|---:|---:|---:|---:|---:|\n");
        for (TargetSummary target : gateways) {
            TargetSummary.CostPerWrite cost = target.costPerWrite();
            row(md, target.target(), Numbers.plain(cost.gatewayCpuMicros()),
                    withNet(cost.postgresCpuMicros(), cost.postgresCpuMicrosNet()),
                    orNa(cost.durableCommits(), Numbers::plain),
                    cost.transactions() == null ? "n/a" : withNet(cost.transactions(), cost.transactionsNet()),
                    Numbers.plain(cost.maxGatewayRssMiB()));
        }
    }

    private static String withNet(double gross, Double net) {
        return Numbers.plain(gross) + (net == null ? "" : " (" + Numbers.plain(net) + ")");
    }

    private static void row(StringBuilder md, String... cells) {
        md.append('|');
        for (String cell : cells) {
            md.append(' ').append(cell.replace("|", "\\|")).append(" |");
        }
        md.append('\n');
    }
}
