package dev.fencegate.loadtest.report;

import java.util.Arrays;

/** Axis arithmetic for the chart. */
final class ChartScale {

    private ChartScale() {
    }

    /** A 1, 2 or 5 times a power of ten, at least {@code raw}. */
    static double niceStep(double raw) {
        if (!(raw > 0)) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double normalized = raw / magnitude;
        double nice = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10;
        return nice * magnitude;
    }

    /** A base-10 log scale from the decade below the smallest value to the one above the largest. */
    record Log(int lowExponent, int highExponent) {

        static Log covering(double[] values) {
            double[] positive = Arrays.stream(values).filter(v -> v > 0).toArray();
            if (positive.length == 0) {
                return new Log(-1, 0);
            }
            int low = (int) Math.floor(Math.log10(Arrays.stream(positive).min().getAsDouble()));
            int high = (int) Math.ceil(Math.log10(Arrays.stream(positive).max().getAsDouble()));
            return new Log(low, Math.max(high, low + 1));
        }

        /** Where {@code value} sits between the bottom (0) and the top (1); zero sits at the bottom. */
        double fraction(double value) {
            if (!(value > 0)) {
                return 0;
            }
            double f = (Math.log10(value) - lowExponent) / (highExponent - lowExponent);
            return Math.max(0, Math.min(1, f));
        }

        double[] decades() {
            double[] decades = new double[highExponent - lowExponent + 1];
            for (int i = 0; i < decades.length; i++) {
                decades[i] = Math.pow(10, lowExponent + i);
            }
            return decades;
        }
    }
}
