package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.AccessLogFormat;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.HostPort;
import dev.fencegate.config.Limits;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.observability.AccessLog;
import dev.fencegate.observability.GatewayMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The window of an admitted write is checked on the event loop before the head and before every
 * body chunk: once it has closed, nothing more goes to the store, the store connection is closed
 * before the request ends, and the client gets 503 admission-expired.
 */
class SendWindowCheckTest {

    private static final String HEAD = "PUT /jobs/w HTTP/1.1\r\nHost: store\r\nFencing-Token: 5\r\nContent-Length: 10\r\n\r\n";

    private final AtomicBoolean closed = new AtomicBoolean();
    private final EmbeddedChannel client = clientPipeline();

    @AfterEach
    void release() {
        client.finishAndReleaseAll();
        EmbeddedStoreChannel.OPENED.get().forEach(EmbeddedChannel::finishAndReleaseAll);
        EmbeddedStoreChannel.OPENED.get().clear();
    }

    @Test
    void aWriteWhoseWindowClosedBeforeItsBodyCameIsNotSentAtAll() {
        client.writeInbound(Unpooled.copiedBuffer(HEAD, StandardCharsets.US_ASCII));
        closed.set(true); // the body comes after the window closed
        client.writeInbound(Unpooled.copiedBuffer("0123456789", StandardCharsets.US_ASCII));
        client.runPendingTasks();

        assertThat(sentToStore()).isEmpty();
        assertThat(answer()).startsWith("HTTP/1.1 503").contains("urn:fencegate:problem:admission-expired");
    }

    @Test
    void aWindowClosingMidBodyCutsTheStoreConnectionBeforeTheRequestEnds() {
        client.writeInbound(Unpooled.copiedBuffer(HEAD + "01234", StandardCharsets.US_ASCII));
        client.runPendingTasks();
        assertThat(sentToStore()).startsWith("PUT /jobs/w HTTP/1.1").endsWith("01234");

        closed.set(true);
        client.writeInbound(Unpooled.copiedBuffer("56789", StandardCharsets.US_ASCII));
        client.runPendingTasks();

        assertThat(sentToStore()).isEmpty();
        assertThat(EmbeddedStoreChannel.OPENED.get()).allMatch(store -> !store.isOpen());
        assertThat(answer()).startsWith("HTTP/1.1 503").contains("urn:fencegate:problem:admission-expired");
    }

    private String sentToStore() {
        StringBuilder wire = new StringBuilder();
        for (EmbeddedStoreChannel store : EmbeddedStoreChannel.OPENED.get()) {
            Object out;
            while ((out = store.readOutbound()) != null) {
                if (out instanceof ByteBuf buf) {
                    wire.append(buf.toString(StandardCharsets.ISO_8859_1));
                }
                ReferenceCountUtil.release(out);
            }
        }
        return wire.toString();
    }

    private String answer() {
        StringBuilder wire = new StringBuilder();
        Object out;
        while ((out = client.readOutbound()) != null) {
            if (out instanceof ByteBuf buf) {
                wire.append(buf.toString(StandardCharsets.ISO_8859_1));
            }
            ReferenceCountUtil.release(out);
        }
        return wire.toString();
    }

    private EmbeddedChannel clientPipeline() {
        FenceGate gate = new FenceGate() {
            @Override
            public CompletableFuture<FenceDecision> check(FenceClaim claim) {
                return CompletableFuture.completedFuture(
                        new FenceDecision.Admitted(claim, Optional.empty()).within(closed::get));
            }

            @Override
            public void finished(FenceClaim claim, boolean outcomeKnown) {
            }
        };
        GatewayConfig config = new GatewayConfig(new HostPort("127.0.0.1", 0), new HostPort("127.0.0.1", 0),
                URI.create("http://127.0.0.1:9"), new DatabaseConfig("jdbc:postgresql://127.0.0.1:1/none", "public", "u", "", 1,
                Duration.ofSeconds(1)), Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(30),
                new Limits(1_024, 2_048, 4_096), SafetyConfig.defaults(), 1);
        StoreConnections connections = new StoreConnections(EmbeddedStoreChannel.transport(), config.upstreamAddress(),
                Duration.ofSeconds(1), new WriteBufferWaterMark(64 * 1024, 256 * 1024));
        GatewayRuntime runtime = new GatewayRuntime(gate, connections, new GatewayMetrics(new SimpleMeterRegistry()),
                AccessLog.of(AccessLogFormat.OFF), ClaimRules.plain(), "", 30_000, NoUploadOwners.INSTANCE);
        EmbeddedChannel channel = new EmbeddedClientChannel();
        channel.config().setOption(ChannelOption.AUTO_READ, false);
        channel.pipeline().addLast(new ClientChannelInitializer(config, runtime));
        try {
            channel.register();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return channel;
    }
}
