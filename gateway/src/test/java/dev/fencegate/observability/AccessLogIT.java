package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencegate.config.AccessLogFormat;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.OperationsConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** With --access-log json every request on the data port leaves one line naming its decision and fence. */
class AccessLogIT {

    @Test
    void aRefusedAndAForwardedWriteEachLeaveOneLineWithTheDecisionTokenAndFence() throws Exception {
        try (AccessLines lines = new AccessLines();
             GatewayHarness gateway = loggingGateway(MemoryObjectStore.Options.loopback(), "access_log")) {
            assertThat(gateway.put("/logged/k?secret=1", 9, "x").statusCode()).isEqualTo(201);
            assertThat(gateway.put("/logged/k", 8, "y").statusCode()).isEqualTo(412);

            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> lines.count() >= 2);
            JsonNode forwarded = lines.get(0);
            assertThat(forwarded.get("decision").asText()).isEqualTo("forwarded");
            assertThat(forwarded.get("status").asInt()).isEqualTo(201);
            assertThat(forwarded.get("path").asText()).isEqualTo("/logged/k");
            assertThat(forwarded.get("token").asLong()).isEqualTo(9);
            JsonNode stale = lines.get(1);
            assertThat(stale.get("decision").asText()).isEqualTo("stale-token");
            assertThat(stale.get("status").asInt()).isEqualTo(412);
            assertThat(stale.get("token").asLong()).isEqualTo(8);
            assertThat(stale.get("currentToken").asLong()).isEqualTo(9);
            assertThat(stale.get("resource").asText()).isEqualTo("/logged/k");
        }
    }

    /** A write whose client left before the store answered is logged too: the store may have applied it. */
    @Test
    void aWriteWhoseClientLeftBeforeTheAnswerLeavesAClientClosedLine() throws Exception {
        MemoryObjectStore.Options slow = MemoryObjectStore.Options.loopback().withWriteDelay(Duration.ofSeconds(1), Duration.ofSeconds(1));
        try (AccessLines lines = new AccessLines(); GatewayHarness gateway = loggingGateway(slow, "access_log_gone")) {
            try (RawHttp raw = gateway.raw()) {
                raw.send("PUT /logged/gone HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\nContent-Length: 1\r\n\r\nx");
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> gateway.store.requestCount() > 0);
            }

            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> lines.count() > 0);
            JsonNode gone = lines.get(0);
            assertThat(gone.get("decision").asText()).isEqualTo("client-closed");
            assertThat(gone.get("status").asInt()).isEqualTo(499);
            assertThat(gone.get("token").asLong()).isEqualTo(3);
            assertThat(gone.get("resource").asText()).isEqualTo("/logged/gone");
        }
    }

    /**
     * A DeleteObjects names many resources at one token: its line carries the token and how many,
     * and when it is refused, the resource that refused it and that resource's fence.
     */
    @Test
    void aDeleteObjectsLineNamesItsTokenHowManyKeysAndTheKeyThatRefusedIt() throws Exception {
        try (AccessLines lines = new AccessLines();
             GatewayHarness gateway = loggingGateway(MemoryObjectStore.Options.loopback(), "access_log_batch")) {
            assertThat(gateway.put("/logged/newer", 9, "v").statusCode()).isEqualTo(201);
            String body = "<Delete><Object><Key>older</Key></Object><Object><Key>newer</Key></Object>"
                    + "<Object><Key>other</Key></Object></Delete>";
            try (RawHttp raw = gateway.raw()) {
                assertThat(RawHttp.status(raw.send(deleteObjects(8, body)).readResponse())).isEqualTo(412);
                assertThat(RawHttp.status(raw.send(deleteObjects(10, body)).readResponse())).isIn(200, 201, 204);
            }

            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> lines.count() >= 3);
            JsonNode refused = lines.get(1);
            assertThat(refused.get("decision").asText()).isEqualTo("stale-token");
            assertThat(refused.get("token").asLong()).isEqualTo(8);
            assertThat(refused.get("resources").asInt()).isEqualTo(3);
            assertThat(refused.get("resource").asText()).isEqualTo("/logged/newer");
            assertThat(refused.get("currentToken").asLong()).isEqualTo(9);
            assertThat(refused.has("fenceMs")).isTrue();
            JsonNode forwarded = lines.get(2);
            assertThat(forwarded.get("decision").asText()).isEqualTo("forwarded");
            assertThat(forwarded.get("token").asLong()).isEqualTo(10);
            assertThat(forwarded.get("resources").asInt()).isEqualTo(3);
            assertThat(forwarded.has("resource")).as("no one resource stands for all three").isFalse();
            assertThat(forwarded.has("fenceMs")).isTrue();
        }
    }

    private static String deleteObjects(long token, String body) {
        return "POST /logged?delete HTTP/1.1\r\nHost: x\r\nFencing-Token: " + token + "\r\nContent-Length: "
                + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    /** The access log's lines, each read as JSON, while open. */
    private static final class AccessLines implements AutoCloseable {
        private static final ObjectMapper JSON = new ObjectMapper();
        private final Logger logger = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

        AccessLines() {
            appender.start();
            logger.addAppender(appender);
        }

        int count() {
            return appender.list.size();
        }

        JsonNode get(int index) throws Exception {
            return JSON.readTree(appender.list.get(index).getFormattedMessage());
        }

        @Override
        public void close() {
            logger.detachAppender(appender);
        }
    }

    /** A gateway with --access-log json in front of a store with {@code options}. */
    private static GatewayHarness loggingGateway(MemoryObjectStore.Options options, String schema) throws Exception {
        return GatewayHarness.start(options, upstream -> {
            GatewayConfig base = GatewayHarness.config(upstream, TestPostgres.config(TestPostgres.newSchema(schema)), Duration.ofSeconds(5));
            return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                    base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(), base.limits(),
                    base.safety(), base.ioThreads(), new OperationsConfig(AccessLogFormat.JSON, ""));
        });
    }
}
