package dev.fencegate.admin;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** An operator who read NOT READY in the log reads when it is ready again, once per change. */
class ReadinessTest {

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(Readiness.class);

    @BeforeEach
    void listen() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void stopListening() {
        logger.detachAppender(log);
    }

    private List<String> lines() {
        return log.list.stream().map(event -> event.getLevel() + " " + event.getFormattedMessage()).toList();
    }

    @Test
    void eachChangeBetweenReadyAndNotIsLoggedOnceTheDataPortServes() {
        Readiness readiness = new Readiness();
        readiness.fenceStoreReachable(false, "FATAL: database \"fences\" does not exist");
        assertThat(readiness.serving()).as("what the start's own line tells").isFalse();
        assertThat(lines()).isEmpty();

        readiness.migrated();
        readiness.fenceStoreReachable(true, null);
        readiness.fenceStoreReachable(true, null);
        assertThat(lines()).containsExactly("INFO Fencegate ready again: writes are checked and forwarded, /readyz 200");

        readiness.fenceStoreReachable(false, "Connection refused");
        readiness.fenceStoreReachable(false, "Connection refused");
        assertThat(lines()).hasSize(2).last().asString()
                .isEqualTo("WARN Fencegate NOT READY: fence store unavailable (Connection refused);"
                        + " writes get 503 and /readyz 503 until that is fixed");

        readiness.draining();
        readiness.fenceStoreReachable(true, null);
        assertThat(lines()).as("shutting down says itself").hasSize(2);
    }
}
