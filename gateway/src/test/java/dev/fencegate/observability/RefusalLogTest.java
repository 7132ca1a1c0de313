package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
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
        RefusalLog refusals = new RefusalLog(logger, now::get, (nanos, task) -> { });
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

    @Test
    void aBurstThatStopsIsStillCountedASecondAfterItsFirstLine() {
        Logger logger = (Logger) LoggerFactory.getLogger("fencegate.audit.test");
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        logger.addAppender(captured);
        AtomicLong now = new AtomicLong(5_000_000_000L);
        List<Runnable> due = new ArrayList<>();
        List<Long> delays = new ArrayList<>();
        RefusalLog refusals = new RefusalLog(logger, now::get, (nanos, task) -> {
            delays.add(nanos);
            due.add(task);
        });
        try {
            for (int i = 0; i < 500; i++) { // half a second of 1,000 a second, then nothing
                refusals.warn("refused #" + i);
                now.addAndGet(1_000_000);
            }
            assertThat(captured.list).hasSize(1);
            assertThat(delays).as("one report, due when the next line may be written").containsExactly(999_000_000L);
            now.addAndGet(500_000_000L);
            due.forEach(Runnable::run);

            assertThat(captured.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("refused #0",
                    "499 more refused since the last such line, not logged; the last: refused #499");
            refusals.warn("refused again");
            assertThat(captured.list).extracting(ILoggingEvent::getFormattedMessage).as("the report took the second's turn")
                    .hasSize(2);
            now.addAndGet(1_000_000_000L);
            refusals.warn("refused later");
            assertThat(captured.list.get(2).getFormattedMessage())
                    .isEqualTo("refused later (and 1 more refused since the last such line, not logged)");
        } finally {
            logger.detachAppender(captured);
        }
    }
}
