package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencegate.fence.ExpiryTrust;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Steps of the fence database's clock, which registrations expire by, told against the monotonic clock. */
class DatabaseClockWatchTest {

    private static final long SECOND_NANOS = 1_000_000_000L;
    private static final long SECOND_MICROS = 1_000_000L;

    private final ListAppender<ILoggingEvent> warnings = new ListAppender<>();

    @BeforeEach
    void captureLog() {
        warnings.start();
        ((Logger) LoggerFactory.getLogger(DatabaseClockWatch.class)).addAppender(warnings);
    }

    @AfterEach
    void releaseLog() {
        ((Logger) LoggerFactory.getLogger(DatabaseClockWatch.class)).detachAppender(warnings);
    }

    /**
     * Readings a second apart: the database's clock keeping pace is no step; 71 s on it against 1 s
     * here is a step forward of about 70 s, and 29 s back against 1 s a step back of about 30 s, each
     * logged and counted.
     */
    @Test
    void aStepOfTheDatabasesClockForwardOrBackIsLoggedAndCounted() {
        DatabaseClockWatch watch = new DatabaseClockWatch(System::nanoTime);
        long database = 1_800_000_000L * SECOND_MICROS;
        long here = 5 * SECOND_NANOS;
        watch.observe(reading(database, here));
        watch.observe(reading(database += SECOND_MICROS, here += SECOND_NANOS));
        assertThat(watch.steps()).as("in step").isZero();

        watch.observe(reading(database += 71 * SECOND_MICROS, here += SECOND_NANOS));
        assertThat(watch.steps()).isEqualTo(1);
        assertThat(warnings.list).singleElement().satisfies(event ->
                assertThat(event.getFormattedMessage()).startsWith("FENCE DATABASE CLOCK STEPPED forward by about 70.0 s"));

        watch.observe(reading(database -= 29 * SECOND_MICROS, here += SECOND_NANOS));
        assertThat(watch.steps()).isEqualTo(2);
        assertThat(warnings.list.get(1).getFormattedMessage()).startsWith("FENCE DATABASE CLOCK STEPPED back by about 30.0 s");
    }

    /**
     * A step forward is told as it is seen, so that rows found expired are not taken as ended for a
     * row length (see {@code ExpiryTrust}); readings in step and a step back tell nothing. Each
     * reading, once compared, is told with when it began.
     */
    @Test
    void aStepForwardIsToldAsItIsSeenAndAStepBackIsNot() {
        AtomicLong here = new AtomicLong(5 * SECOND_NANOS);
        ExpiryTrust expiry = new ExpiryTrust(Duration.ofSeconds(63), here::get);
        DatabaseClockWatch watch = new DatabaseClockWatch(here::get, expiry);
        long database = 1_800_000_000L * SECOND_MICROS;
        watch.observe(reading(database, here.get()));
        assertThat(expiry.readSince(here.get())).isTrue();
        watch.observe(reading(database += SECOND_MICROS, here.addAndGet(SECOND_NANOS)));
        assertThat(expiry.distrusted()).as("in step").isFalse();

        watch.observe(reading(database -= 29 * SECOND_MICROS, here.addAndGet(SECOND_NANOS)));
        assertThat(expiry.distrusted()).as("rows last longer: nothing to distrust").isFalse();
        assertThat(expiry.readSince(here.get() + 1)).as("no reading began later").isFalse();

        watch.observe(reading(database += 71 * SECOND_MICROS, here.addAndGet(SECOND_NANOS)));
        assertThat(expiry.distrusted()).isTrue();
        here.addAndGet(62 * SECOND_NANOS);
        assertThat(expiry.distrusted()).as("a row length from the step").isTrue();
        here.addAndGet(SECOND_NANOS);
        assertThat(expiry.distrusted()).isFalse();
    }

    /**
     * What the readings' round trips can hide is no step, nor a second beyond it, nor a tenth of
     * the time between the readings (drift and slewing over a long outage between two checks).
     */
    @Test
    void aDifferenceWithinTheReadingsRoundTripsASecondAndATenthOfTheGapIsNoStep() {
        DatabaseClockWatch.Reading earlier = new DatabaseClockWatch.Reading(0, 0, 200_000_000L);
        // 2 s apart here at most, 1.6 s at least; a second and 0.2 s more either way is no step.
        assertThat(DatabaseClockWatch.step(earlier, new DatabaseClockWatch.Reading(3_100_000, 1_800_000_000L, 2_000_000_000L)))
                .isZero();
        assertThat(DatabaseClockWatch.step(earlier, new DatabaseClockWatch.Reading(500_000, 1_800_000_000L, 2_000_000_000L)))
                .isZero();
        assertThat(DatabaseClockWatch.step(earlier, new DatabaseClockWatch.Reading(3_300_000, 1_800_000_000L, 2_000_000_000L)))
                .isEqualTo(1_300_000);
        assertThat(DatabaseClockWatch.step(earlier, new DatabaseClockWatch.Reading(300_000, 1_800_000_000L, 2_000_000_000L)))
                .isEqualTo(-1_300_000);
        // An hour apart: six minutes and a second either way is drift, not a step.
        DatabaseClockWatch.Reading hourLater = new DatabaseClockWatch.Reading(3_900_000_000L, 3_600_000_000_000L, 3_600_000_000_000L);
        assertThat(DatabaseClockWatch.step(new DatabaseClockWatch.Reading(0, 0, 0), hourLater)).isZero();
    }

    /**
     * Against a real PostgreSQL, on this host: its clock is read in microseconds since the epoch,
     * in the same statement as what the check reads; read twice in quick succession it keeps pace,
     * and read with this instance's clock claiming a minute passed between, it has stepped back.
     */
    @Test
    void theDatabasesClockIsReadInMicrosecondsOnTheConnection() throws SQLException {
        var server = TestPostgres.server();
        AtomicLong here = new AtomicLong(System.nanoTime());
        DatabaseClockWatch watch = new DatabaseClockWatch(here::get);
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password())) {
            DatabaseClockWatch.Reading first = watch.readWith(connection, "1");
            assertThat(first.databaseMicros()).as("microseconds since the epoch, as this host's clock says")
                    .isCloseTo(System.currentTimeMillis() * 1_000, org.assertj.core.data.Offset.offset(60 * SECOND_MICROS));
            here.addAndGet(SECOND_NANOS / 5);
            watch.readWith(connection, "1");
            assertThat(watch.steps()).isZero();

            here.addAndGet(60 * SECOND_NANOS);
            watch.readWith(connection, "1");
        }
        assertThat(watch.steps()).isEqualTo(1);
        assertThat(warnings.list).singleElement().satisfies(event ->
                assertThat(event.getFormattedMessage()).containsPattern("^FENCE DATABASE CLOCK STEPPED back by about (59|60)\\.\\d s"));
    }

    private static DatabaseClockWatch.Reading reading(long databaseMicros, long hereNanos) {
        return new DatabaseClockWatch.Reading(databaseMicros, hereNanos, hereNanos + 2_000_000L);
    }
}
