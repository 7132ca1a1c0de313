package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceDecision;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client side reads one message per read() it asks for; messages already decoded wait in
 * FlowControlHandler, which hands the next one over from inside that read(). Each is handled one
 * after another, never a call deeper than the one before, however many wait.
 */
class ClientRequestReceiverTest {

    private final EmbeddedChannel client = EmbeddedClientChannel.throughGateway(claim -> new FenceDecision.Admitted(claim, Optional.empty()));

    @AfterEach
    void release() {
        client.finishAndReleaseAll();
        EmbeddedStoreChannel.OPENED.get().forEach(EmbeddedChannel::finishAndReleaseAll);
        EmbeddedStoreChannel.OPENED.get().clear();
    }

    /**
     * A refused write's body, small enough to be read and dropped, came in 4,096 pieces (the most this test gateway takes) while an
     * earlier request waited on the store: each piece waits decoded, and dropping one asks for the
     * next. Asked for from inside the delivery of the last, each was handled a call deeper, until
     * the stack overflowed and the connection was lost with the request after it.
     */
    @Test
    void aDroppedBodyThatWaitsInManyPiecesIsReadPieceByPieceAndTheConnectionKept() {
        client.writeInbound(EmbeddedClientChannel.ascii("PUT /jobs/a HTTP/1.1\r\nHost: store\r\nFencing-Token: 5\r\nContent-Length: 1\r\n\r\nx"));
        client.runPendingTasks();
        assertThat(EmbeddedStoreChannel.OPENED.get()).hasSize(1);
        EmbeddedStoreChannel store = EmbeddedStoreChannel.OPENED.get().get(0);
        assertThat(EmbeddedClientChannel.sentTo(store)).startsWith("PUT /jobs/a HTTP/1.1").endsWith("x");

        int pieces = 4_096;
        client.writeInbound(EmbeddedClientChannel.ascii("PUT /jobs/b HTTP/1.1\r\nHost: store\r\nContent-Length: " + pieces + "\r\n\r\n"));
        for (int i = 0; i < pieces; i++) {
            client.writeInbound(EmbeddedClientChannel.ascii("y"));
        }
        client.writeInbound(EmbeddedClientChannel.ascii("GET /jobs/a HTTP/1.1\r\nHost: store\r\n\r\n"));

        store.writeInbound(EmbeddedClientChannel.ascii("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"));
        client.runPendingTasks();

        String answers = answer();
        assertThat(answers).startsWith("HTTP/1.1 201").contains("HTTP/1.1 428");
        assertThat(client.isOpen()).isTrue();
        assertThat(EmbeddedClientChannel.sentTo(store)).startsWith("GET /jobs/a HTTP/1.1");
    }

    /**
     * An answer whose handling throws (here a fence decision the gateway cannot read) was kept by
     * the future it came back on: the client waited out its idle timeout with no answer.
     */
    @Test
    void aFenceAnswerWhoseHandlingFailsClosesTheConnectionAtOnceAndSendsNothing() {
        EmbeddedChannel failing = EmbeddedClientChannel.throughGateway(claim -> null);
        try {
            failing.writeInbound(EmbeddedClientChannel.ascii("PUT /jobs/a HTTP/1.1\r\nHost: store\r\nFencing-Token: 5\r\nContent-Length: 1\r\n\r\nx"));
            failing.runPendingTasks();

            assertThat(failing.isOpen()).as("closed at once, not at the idle timeout").isFalse();
            assertThat(EmbeddedStoreChannel.OPENED.get()).as("no store connection").isEmpty();
        } finally {
            failing.finishAndReleaseAll();
        }
    }

    private String answer() {
        return EmbeddedClientChannel.sentTo(client);
    }
}
