package dev.fencegate.store;

import dev.fencegate.fence.ExpiryTrust;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the fence database's clock against this instance's monotonic one. Registrations expire
 * by the database's clock: a step forward makes every row look that much closer to its end, so a
 * raise elsewhere may stop waiting for writes still under way; a step back makes rows last longer.
 * NTP should slew that clock, not step it. When it steps, or this host was suspended (its
 * monotonic clock stopped while the database's ran), this says so in the log and in a count.
 * Read by one thread at a time (the fence store monitor's checks).
 */
final class DatabaseClockWatch {

    private static final Logger log = LoggerFactory.getLogger(DatabaseClockWatch.class);
    /**
     * A step up to this, beyond what the readings' round trips can hide, is not told apart from
     * the clocks' drift and slewing, and neither is a tenth of the time between the readings (a
     * long outage between two checks).
     */
    static final long TOLERANCE_MICROS = 1_000_000;
    private static final String NOW = "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint";

    private final LongSupplier monotonicNanos;
    private final ExpiryTrust expiry;
    private final LongAdder steps = new LongAdder();
    private Reading last;

    /** The database's clock, in microseconds, read between two readings of the monotonic clock. */
    record Reading(long databaseMicros, long beforeNanos, long afterNanos) {
    }

    DatabaseClockWatch(LongSupplier monotonicNanos) {
        this(monotonicNanos, ExpiryTrust.unwatched());
    }

    /** @param expiry told of each step forward as it is seen, and of each reading once compared */
    DatabaseClockWatch(LongSupplier monotonicNanos, ExpiryTrust expiry) {
        this.monotonicNanos = monotonicNanos;
        this.expiry = expiry;
    }

    /**
     * How far the database's clock stepped between two readings, in microseconds (back if negative),
     * beyond what the monotonic clock measured between them; 0 within what two readings can tell.
     */
    static long step(Reading earlier, Reading later) {
        long database = later.databaseMicros() - earlier.databaseMicros();
        // Each database instant lies within its reading's round trip.
        long shortest = (later.beforeNanos() - earlier.afterNanos()) / 1_000;
        long longest = (later.afterNanos() - earlier.beforeNanos()) / 1_000;
        long tolerance = TOLERANCE_MICROS + longest / 10;
        if (database > longest + tolerance) {
            return database - longest;
        }
        if (database < shortest - tolerance) {
            return database - shortest;
        }
        return 0;
    }

    /**
     * Runs {@code SELECT <the database's clock>, <also>} on {@code connection} and compares the
     * clock with the last reading: a check that reads something anyway reads the clock in the same
     * round trip, and fails only as it would have without it. Blocking; throws what the statement
     * throws.
     */
    Reading readWith(Connection connection, String also) throws SQLException {
        long before = monotonicNanos.getAsLong();
        long database;
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT " + NOW + ", " + also)) {
            row.next();
            database = row.getLong(1);
        }
        Reading reading = new Reading(database, before, monotonicNanos.getAsLong());
        observe(reading);
        return reading;
    }

    void observe(Reading reading) {
        Reading earlier = last;
        last = reading;
        long step = earlier == null ? 0 : step(earlier, reading);
        if (step > 0) {
            expiry.steppedForward();
        }
        // After the step is told: whoever finds this reading compared finds the step too.
        expiry.clockRead(reading.beforeNanos());
        if (step == 0) {
            return;
        }
        steps.increment();
        double seconds = Math.abs(step) / 1e6;
        double apart = (reading.afterNanos() - earlier.beforeNanos()) / 1e9;
        if (step > 0) {
            log.warn("FENCE DATABASE CLOCK STEPPED forward by about {} s between two readings {} s apart by this "
                            + "instance's clock (or this host was suspended meanwhile): registrations expire by the database's "
                            + "clock, so each looks that much closer to its end; for a row length from now this instance takes "
                            + "no row as ended for having expired, and a raise or naming change past one waits that long; "
                            + "let NTP slew the database host's clock, not step it",
                    String.format(Locale.ROOT, "%.1f", seconds), String.format(Locale.ROOT, "%.1f", apart));
        } else {
            log.warn("FENCE DATABASE CLOCK STEPPED back by about {} s between two readings {} s apart by this instance's "
                            + "clock: registrations last that much longer, and a raise waits that much longer for an instance "
                            + "that stopped; let NTP slew the database host's clock, not step it",
                    String.format(Locale.ROOT, "%.1f", seconds), String.format(Locale.ROOT, "%.1f", apart));
        }
    }

    /** How many steps of the database's clock this instance has seen. */
    long steps() {
        return steps.sum();
    }
}
