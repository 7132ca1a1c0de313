package dev.fencegate.loadtest.report;

import java.util.Locale;

/** Number formats shared by the Markdown table and the chart. */
final class Numbers {

    private Numbers() {
    }

    static String rate(double perSecond) {
        return String.format(Locale.ROOT, "%,d", Math.round(perSecond));
    }

    /** Three significant digits, enough to compare and short enough to read. */
    static String millis(double ms) {
        if (ms == 0) {
            return "0";
        }
        int decimals = Math.max(0, 2 - (int) Math.floor(Math.log10(Math.abs(ms))));
        return String.format(Locale.ROOT, "%." + Math.min(decimals, 3) + "f", ms);
    }

    /** Microseconds and such: one decimal is as much as a noisy run supports. */
    static String tenths(double value) {
        return String.format(Locale.ROOT, "%,.1f", value);
    }

    static String plain(double value) {
        return String.format(Locale.ROOT, "%.3f", value).replaceAll("\\.?0+$", "");
    }
}
