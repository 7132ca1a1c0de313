package dev.fencegate.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when Netty reports a leaked buffer. Netty only logs leaks, and only when a later
 * allocation finds a collected, unreleased buffer; so collect, allocate, then look at the log.
 */
final class LeakWatch implements BeforeEachCallback, AfterEachCallback {
    static {
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
    }

    private final List<String> leaks = new CopyOnWriteArrayList<>();
    private final Logger logger = Logger.getLogger(ResourceLeakDetector.class.getName());
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getMessage() != null && record.getMessage().contains("LEAK")) {
                leaks.add(record.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @Override
    public void beforeEach(ExtensionContext context) {
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
        logger.addHandler(handler);
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        try {
            for (int i = 0; i < 5; i++) {
                System.gc();
                Thread.sleep(50);
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                probe.release();
            }
            assertThat(leaks).as("Netty leak reports").isEmpty();
        } finally {
            logger.removeHandler(handler);
        }
    }
}
