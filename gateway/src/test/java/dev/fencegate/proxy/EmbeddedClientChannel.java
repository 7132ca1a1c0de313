package dev.fencegate.proxy;

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
import io.netty.channel.DefaultChannelId;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;

/** A client connection for handler tests whose event loop can also serve the store connections' Bootstrap. */
final class EmbeddedClientChannel extends EmbeddedChannel {

    private EventLoop loop;

    EmbeddedClientChannel() {
        super(DefaultChannelId.newInstance(), false, false);
    }

    /**
     * A registered client connection through the whole client pipeline, with {@code decide}
     * answering every fence check at once and store connections opened as {@link EmbeddedStoreChannel}s.
     */
    static EmbeddedChannel throughGateway(Function<FenceClaim, FenceDecision> decide) {
        return throughGateway(decide, Duration.ofSeconds(30));
    }

    /** As {@link #throughGateway(Function)}, the store given {@code upstreamTimeout} to answer (the client 30 s between reads). */
    static EmbeddedChannel throughGateway(Function<FenceClaim, FenceDecision> decide, Duration upstreamTimeout) {
        return throughGateway(decide, upstreamTimeout, outcomeKnown -> { });
    }

    /** As {@link #throughGateway(Function, Duration)}, told each admitted write's end as the fence is: whether its outcome is known. */
    static EmbeddedChannel throughGateway(Function<FenceClaim, FenceDecision> decide, Duration upstreamTimeout,
                                          Consumer<Boolean> finished) {
        FenceGate gate = new FenceGate() {
            @Override
            public CompletableFuture<FenceDecision> check(FenceClaim claim, Executor answerOn) {
                return CompletableFuture.completedFuture(decide.apply(claim));
            }

            @Override
            public void finished(FenceClaim claim, boolean outcomeKnown) {
                finished.accept(outcomeKnown);
            }

            /** None refused up front: this fence makes every decision claim by claim, in {@link #check}. */
            @Override
            public CompletableFuture<Optional<FenceDecision>> firstRefusal(List<FenceClaim> claims) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
        };
        GatewayConfig config = new GatewayConfig(new HostPort("127.0.0.1", 0), new HostPort("127.0.0.1", 0),
                URI.create("http://127.0.0.1:9"), new DatabaseConfig("jdbc:postgresql://127.0.0.1:1/none", "public", "u", "", 1,
                Duration.ofSeconds(1)), Duration.ofSeconds(1), upstreamTimeout, Duration.ofSeconds(30),
                new Limits(1_024, 2_048, 4_096), SafetyConfig.defaults(), 1);
        StoreConnections connections = new StoreConnections(EmbeddedStoreChannel.transport(), config.upstreamAddress(),
                Duration.ofSeconds(1), new WriteBufferWaterMark(64 * 1024, 256 * 1024));
        GatewayRuntime runtime = new GatewayRuntime(gate, connections, new GatewayMetrics(new SimpleMeterRegistry()),
                AccessLog.of(AccessLogFormat.OFF), ClaimRules.plain(), "", Optional.empty(), upstreamTimeout.toMillis(), NoUploadOwners.INSTANCE);
        EmbeddedChannel client = new EmbeddedClientChannel();
        client.config().setOption(ChannelOption.AUTO_READ, false);
        client.pipeline().addLast(new ClientChannelInitializer(config, runtime));
        try {
            client.register();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return client;
    }

    @Override
    public EventLoop eventLoop() {
        if (loop == null) {
            loop = ResolvableLoop.wrap(super.eventLoop());
        }
        return loop;
    }

    /** {@code text} as bytes on the wire. */
    static ByteBuf ascii(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }

    /** Everything {@code channel} wrote, read off as text, each buffer released. */
    static String sentTo(EmbeddedChannel channel) {
        StringBuilder wire = new StringBuilder();
        Object out;
        while ((out = channel.readOutbound()) != null) {
            if (out instanceof ByteBuf buf) {
                wire.append(buf.toString(StandardCharsets.ISO_8859_1));
            }
            ReferenceCountUtil.release(out);
        }
        return wire.toString();
    }
}
