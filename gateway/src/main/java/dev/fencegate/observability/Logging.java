package dev.fencegate.observability;

import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/** The logging backend's lifecycle, kept out of the command classes. */
public final class Logging {

    private Logging() {
    }

    /**
     * Writes out what asynchronous appenders still queue (every log line, and the access log) and stops
     * logging, waiting at most a second for each of them when nobody reads stderr or stdout.
     * Call last before the process halts, or the final lines are lost.
     */
    public static void stop() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.stop();
        }
    }
}
