package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.Limits;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import io.netty.channel.ChannelInitializer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Connections past --max-connections are closed on accept, quietly (a flood of them must not fill
 * the log with a stack trace each); a freed slot is usable again.
 */
@ExtendWith(NoNettyLeaks.class)
class ConnectionLimitIT {

    private static final int MAX = 4;

    @Test
    void connectionsPastTheLimitAreClosedAndFreedSlotsAreReused() throws Exception {
        ListAppender<ILoggingEvent> initializerLog = new ListAppender<>();
        initializerLog.start();
        Logger initializer = (Logger) LoggerFactory.getLogger(ChannelInitializer.class);
        initializer.addAppender(initializerLog);
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> {
            GatewayConfig base = GatewayHarness.config(upstream, TestPostgres.config(TestPostgres.newSchema("conn_limit")), Duration.ofSeconds(5));
            return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                    base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(),
                    new Limits(8_192, 16_384, 0, 100, MAX, "", "localhost"), base.safety(), base.ioThreads(), base.operations());
        })) {
            List<RawHttp> held = new ArrayList<>();
            try {
                for (int i = 0; i < MAX; i++) {
                    RawHttp raw = gateway.raw();
                    assertThat(RawHttp.status(raw.send("GET /c/" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())).isEqualTo(404);
                    held.add(raw);
                }
                try (RawHttp extra = gateway.raw()) {
                    assertThat(extra.closedByPeer()).isTrue();
                }
                assertThat(initializerLog.list).as("a refused connection logs no failure").isEmpty();
                held.remove(0).close();
                Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                    try (RawHttp again = gateway.raw()) {
                        assertThat(RawHttp.status(again.send("GET /c/again HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())).isEqualTo(404);
                    }
                });
            } finally {
                for (RawHttp raw : held) {
                    raw.close();
                }
            }
        } finally {
            initializer.detachAppender(initializerLog);
        }
    }
}
