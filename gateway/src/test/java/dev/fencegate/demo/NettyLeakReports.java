package dev.fencegate.demo;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Catches the leak reports Netty logs (paranoid level under surefire), so a test class can fail on them. */
final class NettyLeakReports implements AutoCloseable {

    private final Logger logger = (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private NettyLeakReports() {
        appender.start();
        logger.addAppender(appender);
    }

    static NettyLeakReports attach() {
        return new NettyLeakReports();
    }

    /** Netty reports a collected, unreleased buffer only when a later buffer is allocated, so provoke both. */
    List<String> leaks() throws InterruptedException {
        for (int round = 0; round < 5; round++) {
            System.gc();
            Thread.sleep(20);
            ByteBufAllocator.DEFAULT.buffer(1).release();
        }
        synchronized (appender.list) {
            return appender.list.stream()
                    .filter(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
                    .map(ILoggingEvent::getFormattedMessage)
                    .toList();
        }
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
