package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The order in which a store connection's owners hear that a checked flush found its window closed. */
class SocketGateTest {

    @AfterEach
    void release() {
        EmbeddedStoreChannel.OPENED.get().forEach(EmbeddedStoreChannel::finishAndReleaseAll);
        EmbeddedStoreChannel.OPENED.get().clear();
    }

    /**
     * A write whose promise cannot fail quietly (TLS's, or an encoder's parts) reports its failure
     * as an exception on the connection, which the exchange would take for a store gone (502, the
     * outcome unknown): the sender hears of the closed window first, and answers 503
     * admission-expired with the outcome known.
     */
    @Test
    void theSenderHearsOfAClosedWindowBeforeAnyWriteOfTheFlushFails() throws Exception {
        List<String> heard = new ArrayList<>();
        EmbeddedStoreChannel store = new EmbeddedStoreChannel();
        SocketGate gate = new SocketGate();
        store.pipeline().addLast(gate, new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                heard.add("write failed: " + cause.getMessage());
            }
        });
        store.register();
        gate.bind(() -> true, () -> heard.add("window closed"));

        store.write(Unpooled.copiedBuffer("PUT /b/k HTTP/1.1\r\n\r\n", StandardCharsets.US_ASCII), store.voidPromise());
        store.flush();

        assertThat(heard).containsExactly("window closed",
                "write failed: the write's admission expired before the store connection took all of it");
        assertThat(store.isOpen()).isFalse();
    }
}
