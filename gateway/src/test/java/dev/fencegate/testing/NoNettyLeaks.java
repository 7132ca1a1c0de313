package dev.fencegate.testing;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Fails a test class when Netty reports a leaked buffer. Surefire and failsafe run with paranoid
 * leak detection, which tracks every buffer; reports come when a leaked one is collected.
 */
public final class NoNettyLeaks implements BeforeAllCallback, AfterAllCallback {

    private final ListAppender<ILoggingEvent> reports = new ListAppender<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        reports.start();
        ((Logger) LoggerFactory.getLogger(ResourceLeakDetector.class)).addAppender(reports);
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            System.gc();
            Thread.sleep(50);
            // Leak reports are emitted on the next tracked allocation after collection.
            ByteBuf probe = PooledByteBufAllocator.DEFAULT.buffer(16);
            probe.release();
        }
        ((Logger) LoggerFactory.getLogger(ResourceLeakDetector.class)).detachAppender(reports);
        var leaks = reports.list.stream().filter(event -> event.getFormattedMessage().contains("LEAK")).toList();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty buffer leak(s) reported, first: " + leaks.get(0).getFormattedMessage());
        }
    }
}
