package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.read.ListAppender;
import ch.qos.logback.classic.PatternLayout;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencegate.config.AccessLogFormat;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Iterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** --access-log json: one JSON object per request on fencegate.access, written bare to stdout; off writes nothing. */
class AccessLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

    private final Logger logger = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();

    @BeforeEach
    void capture() {
        captured.start();
        logger.addAppender(captured);
    }

    @AfterEach
    void release() {
        logger.detachAppender(captured);
    }

    @Test
    void aRefusedWriteIsOneJsonObjectWithEveryField() throws IOException {
        AccessLog log = new AccessLog(logger, true, CLOCK);

        log.record(new AccessLog.Entry("PUT", "/reports/q1.csv", "stale-token", 412, 7L, 8L, "/reports/q1.csv",
                Duration.ofNanos(1_234_567), null, Duration.ofMillis(3)));

        assertThat(captured.list).singleElement().satisfies(event -> assertThat(event.getLevel()).isEqualTo(Level.INFO));
        JsonNode line = JSON.readTree(captured.list.get(0).getFormattedMessage());
        assertThat(line).isEqualTo(JSON.readTree("""
                {"time":"2026-11-29T12:00:00Z","method":"PUT","path":"/reports/q1.csv","decision":"stale-token",
                 "status":412,"token":7,"currentToken":8,"resource":"/reports/q1.csv","fenceMs":1.235,"totalMs":3.0}"""));
        assertThat(captured.list.get(0).getFormattedMessage()).doesNotContain("\n");
    }

    /** Presigned URLs carry credentials in the query: the log keeps the path only. */
    @Test
    void theQueryIsNeverLogged() throws IOException {
        new AccessLog(logger, true, CLOCK).record(new AccessLog.Entry("GET", "/b/k?X-Amz-Signature=abc123&X-Amz-Credential=AKIA",
                "forwarded", 200, null, null, null, null, Duration.ofMillis(2), Duration.ofMillis(2)));

        String message = captured.list.get(0).getFormattedMessage();
        assertThat(JSON.readTree(message).get("path").asText()).isEqualTo("/b/k");
        assertThat(message).doesNotContain("abc123").doesNotContain("AKIA").doesNotContain("\"token\"");
    }

    /** An absolute-form target is refused, but logged: the user and password before its host are not. */
    @Test
    void theUserAndPasswordOfAnAbsoluteTargetAreNeverLogged() throws IOException {
        new AccessLog(logger, true, CLOCK).record(new AccessLog.Entry("GET", "http://u:secret@h/b/k?sig=1",
                "bad-request", 400, null, null, null, null, Duration.ofMillis(2), Duration.ofMillis(2)));

        String message = captured.list.get(0).getFormattedMessage();
        assertThat(JSON.readTree(message).get("path").asText()).isEqualTo("http://h/b/k");
        assertThat(message).doesNotContain("secret");
        new AccessLog(logger, true, CLOCK).record(new AccessLog.Entry("GET", "http://u:p@ss?w@h/b/k",
                "bad-request", 400, null, null, null, null, Duration.ofMillis(2), Duration.ofMillis(2)));
        assertThat(JSON.readTree(captured.list.get(1).getFormattedMessage()).get("path").asText())
                .as("an '@' and a '?' in the password").isEqualTo("http://h/b/k");
    }

    @Test
    void offLogsNothing() {
        AccessLog log = AccessLog.of(AccessLogFormat.OFF);

        log.record(new AccessLog.Entry("PUT", "/a", "forwarded", 201, 1L, null, "/a", null, null, Duration.ZERO));

        assertThat(log.enabled()).isFalse();
        assertThat(captured.list).isEmpty();
    }

    @Test
    void jsonIsOnAndWritesToTheAccessLogger() {
        AccessLog log = AccessLog.of(AccessLogFormat.JSON);

        log.record(new AccessLog.Entry("PUT", "/a", "forwarded", 201, 1L, null, "/a", null, null, Duration.ZERO));

        assertThat(log.enabled()).isTrue();
        assertThat(captured.list).hasSize(1);
    }

    /**
     * logback.xml: the access logger writes only the message, to stdout, and not also to the
     * root's stderr lines; at INFO even when the root level is raised.
     */
    @Test
    void logbackSendsTheBareMessageToStdoutAndNowhereElse() {
        assertThat(logger.isAdditive()).isFalse();
        assertThat(logger.getLevel()).isEqualTo(Level.INFO);
        Appender<ILoggingEvent> access = logger.getAppender("ACCESS");
        assertThat(access).isInstanceOf(AsyncAppender.class);
        Iterator<Appender<ILoggingEvent>> behind = ((AsyncAppender) access).iteratorForAppenders();
        Appender<ILoggingEvent> console = behind.next();
        assertThat(console).isInstanceOf(ConsoleAppender.class);
        assertThat(((ConsoleAppender<ILoggingEvent>) console).getTarget()).isEqualTo("System.out");
        PatternLayout layout = (PatternLayout) ((LayoutWrappingEncoder<ILoggingEvent>)
                ((ConsoleAppender<ILoggingEvent>) console).getEncoder()).getLayout();
        assertThat(layout.getPattern()).isEqualTo("%msg%n");
    }
}
