package dev.fencegate.loadtest.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;

/**
 * latency.svg: p50 (solid) and p99 (dashed) latency against offered rate, one colour per
 * target, one panel per store because stores differ in rate by orders of magnitude. Latency is
 * on a log scale because tails span decades.
 */
public final class SvgLatencyChart {
    private static final int WIDTH = 980;
    private static final int HEADER = 40;
    private static final int PANEL_HEIGHT = 400;
    private static final int LEFT = 80;
    private static final int RIGHT = 720;
    private static final int PLOT_TOP = 30;
    private static final int PLOT_BOTTOM = 330;
    private static final String[] COLORS = {
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

    private SvgLatencyChart() {
    }

    public static String render(String title, List<TargetSummary> targets) {
        Map<String, List<TargetSummary>> byStore = targets.stream().filter(t -> !t.rates().isEmpty())
                .collect(Collectors.groupingBy(TargetSummary::store, LinkedHashMap::new, Collectors.toList()));
        int height = HEADER + Math.max(1, byStore.size()) * PANEL_HEIGHT;
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"sans-serif\" font-size=\"12\">\n", WIDTH, height, WIDTH, height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        text(svg, WIDTH / 2.0, 25, "middle", 16, title);
        if (byStore.isEmpty()) {
            text(svg, WIDTH / 2.0, HEADER + PANEL_HEIGHT / 2.0, "middle", 14, "no fixed-rate runs");
        }
        int panel = 0;
        int colour = 0;
        for (Map.Entry<String, List<TargetSummary>> store : byStore.entrySet()) {
            Panel p = Panel.of(store.getKey(), store.getValue(), HEADER + panel++ * PANEL_HEIGHT);
            p.axes(svg);
            for (int i = 0; i < store.getValue().size(); i++) {
                String color = COLORS[colour++ % COLORS.length];
                TargetSummary target = store.getValue().get(i);
                p.series(svg, target, color, point -> point.latencyMs().p50(), "p50", "");
                p.series(svg, target, color, point -> point.latencyMs().p99(), "p99", " stroke-dasharray=\"6 4\"");
                p.legend(svg, i, target.target(), color);
            }
        }
        return svg.append("</svg>\n").toString();
    }

    /** One store's plot: its own rate axis, a shared look. */
    private record Panel(String store, int top, double xMax, ChartScale.Log yScale) {

        static Panel of(String store, List<TargetSummary> targets, int top) {
            double maxRate = targets.stream().flatMap(t -> t.rates().stream())
                    .mapToDouble(TargetSummary.RatePoint::offeredRate).max().orElse(1);
            double[] latencies = targets.stream().flatMap(t -> t.rates().stream())
                    .flatMapToDouble(p -> DoubleStream.of(p.latencyMs().p50(), p.latencyMs().p99()))
                    .toArray();
            return new Panel(store, top, ChartScale.niceStep(maxRate * 1.05 / 5) * 5, ChartScale.Log.covering(latencies));
        }

        void axes(StringBuilder svg) {
            text(svg, (LEFT + RIGHT) / 2.0, top + PLOT_TOP - 10, "middle", 14, "store: " + store);
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n",
                    LEFT, top + PLOT_TOP, RIGHT - LEFT, PLOT_BOTTOM - PLOT_TOP));
            for (int i = 0; i <= 5; i++) {
                double rate = xMax * i / 5;
                line(svg, x(rate), top + PLOT_BOTTOM, x(rate), top + PLOT_TOP, "#ddd");
                text(svg, x(rate), top + PLOT_BOTTOM + 18, "middle", 12, Numbers.rate(rate));
            }
            for (double ms : yScale.decades()) {
                line(svg, LEFT, y(ms), RIGHT, y(ms), "#ddd");
                text(svg, LEFT - 8, y(ms) + 4, "end", 12, Numbers.plain(ms) + " ms");
            }
            text(svg, (LEFT + RIGHT) / 2.0, top + PLOT_BOTTOM + 40, "middle", 13, "offered rate (requests/s)");
            double middle = top + (PLOT_TOP + PLOT_BOTTOM) / 2.0;
            svg.append(String.format(Locale.ROOT,
                    "<text x=\"20\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 20 %.1f)\">"
                            + "latency (ms, log scale)</text>\n", middle, middle));
            text(svg, RIGHT + 20, top + PLOT_BOTTOM, "start", 12, "solid: p50, dashed: p99");
        }

        void series(StringBuilder svg, TargetSummary target, String color,
                    ToDoubleFunction<TargetSummary.RatePoint> value, String label, String dash) {
            String points = target.rates().stream()
                    .map(p -> String.format(Locale.ROOT, "%.1f,%.1f", x(p.offeredRate()), y(value.applyAsDouble(p))))
                    .collect(Collectors.joining(" "));
            svg.append(String.format(Locale.ROOT,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>\n", color, dash, points));
            for (TargetSummary.RatePoint point : target.rates()) {
                double ms = value.applyAsDouble(point);
                svg.append(String.format(Locale.ROOT,
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s</title></circle>\n",
                        x(point.offeredRate()), y(ms), color,
                        escape(target.target() + " " + label + " at " + Numbers.rate(point.offeredRate())
                                + " req/s: " + Numbers.millis(ms) + " ms")));
            }
        }

        void legend(StringBuilder svg, int index, String name, String color) {
            double y = top + PLOT_TOP + 10 + index * 22;
            line(svg, RIGHT + 20, y, RIGHT + 45, y, color);
            text(svg, RIGHT + 52, y + 4, "start", 12, name);
        }

        private double x(double rate) {
            return LEFT + (RIGHT - LEFT) * rate / xMax;
        }

        private double y(double ms) {
            return top + PLOT_BOTTOM - (PLOT_BOTTOM - PLOT_TOP) * yScale.fraction(ms);
        }
    }

    private static void line(StringBuilder svg, double x1, double y1, double x2, double y2, String color) {
        svg.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
                x1, y1, x2, y2, color, "#ddd".equals(color) ? "1" : "2"));
    }

    private static void text(StringBuilder svg, double x, double y, String anchor, int size, String content) {
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">%s</text>\n",
                x, y, anchor, size, escape(content)));
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
