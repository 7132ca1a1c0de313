package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceDecision;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Heads the screen refuses, sent as bytes through the client pipeline: its decoder first, as a client's would be. */
class RequestScreenTest {

    private final AtomicInteger fenceChecks = new AtomicInteger();
    private final EmbeddedChannel client = EmbeddedClientChannel.throughGateway(claim -> {
        fenceChecks.incrementAndGet();
        return new FenceDecision.Admitted(claim, Optional.empty());
    });

    @AfterEach
    void release() {
        client.finishAndReleaseAll();
        EmbeddedStoreChannel.OPENED.get().forEach(EmbeddedChannel::finishAndReleaseAll);
        EmbeddedStoreChannel.OPENED.get().clear();
    }

    /**
     * Netty's decoder checks repeated Content-Length fields only under HTTP/1.1: under HTTP/1.0 it
     * keeps the first value and the gateway would frame the body by it, while a store reading
     * another value frames it otherwise (RFC 9112 6.3). Refused whatever the version.
     */
    @ParameterizedTest
    @ValueSource(strings = {"Content-Length: 4\r\nContent-Length: 62\r\n", "Content-Length: 4\r\nContent-Length: 4\r\n",
            "Content-Length: 4, 62\r\n", "Content-Length: 4,4\r\n"})
    void anHttp10RequestWithTwoContentLengthsIsRefusedBeforeItsFence(String lengths) {
        client.writeInbound(EmbeddedClientChannel.ascii("PUT /jobs/a HTTP/1.0\r\nHost: store\r\nFencing-Token: 5\r\n" + lengths + "\r\nabcd"));
        client.runPendingTasks();

        String answer = EmbeddedClientChannel.sentTo(client);
        assertThat(answer).startsWith("HTTP/1.1 400").containsIgnoringCase("connection: close").contains("Content-Length");
        assertThat(client.isOpen()).as("closed").isFalse();
        assertThat(fenceChecks).as("fence checks").hasValue(0);
        assertThat(EmbeddedStoreChannel.OPENED.get()).as("store connections").isEmpty();
    }
}
