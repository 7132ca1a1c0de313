package dev.fencegate.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as operators write them: {@code 250ms}, {@code 5s}, {@code 2m}, {@code 6h}, {@code 7d}. */
public final class Durations {

    /**
     * The longest a timeout may be. Timeouts become nanoseconds added to {@code System.nanoTime()},
     * and the connect timeout int milliseconds; a day is past any wait worth having and far below
     * where those overflow (about 24 days for int milliseconds).
     */
    public static final Duration LONGEST_TIMEOUT = Duration.ofDays(1);
    private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();
    private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    private Durations() {
    }

    public static Duration parse(String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' (expected a duration such as 500ms, 5s, 2m, 6h or 7d)");
        }
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }

    /** Refuses a timeout that is missing, not above 0 or above {@code longest}, naming its flag. */
    static void requireTimeout(String flag, Duration timeout, Duration longest) {
        if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(longest) > 0) {
            throw new IllegalArgumentException(flag + ": " + (timeout == null ? "missing" : format(timeout))
                    + " (expected more than 0 and at most " + format(longest) + ")");
        }
    }

    public static String format(Duration duration) {
        long ms = duration.toMillis();
        if (ms > 0 && ms % DAY_MILLIS == 0) {
            return ms / DAY_MILLIS + "d";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
