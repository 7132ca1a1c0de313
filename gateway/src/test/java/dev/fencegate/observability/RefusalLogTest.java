package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A client refused as fast as it can send writes the log at most a line a second. */
class RefusalLogTest {

    @Test
    void refusalsAreLoggedAtMostOnceASecondCountingTheOnesLeftOut() {
        Logger logger = (Logger) LoggerFactory.getLogger("fencegate.audit.test");
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        logger.addAppender(captured);
        AtomicLong now = new AtomicLong(5_000_000_000L);
        RefusalLog refusals = new RefusalLog(logger, now::get);
        try {
            for (int i = 0; i < 40_000; i++) { // two seconds of 20,000 a second
                refusals.warn("refused #" + i);
                now.addAndGet(50_000);
            }
            assertThat(captured.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("refused #0",
                    "refused #20000 (and 19999 more refused since the last such line, not logged)");
        } finally {
            logger.detachAppender(captured);
        }
    }
}
