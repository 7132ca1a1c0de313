package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.SendWindow;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

    private final List<EmbeddedChannel> others = new ArrayList<>();

    @AfterEach
    void release() {
        client.finishAndReleaseAll();
        others.forEach(EmbeddedChannel::finishAndReleaseAll);
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

    /**
     * This process woke from a pause past the write's window with the store's timer due as well,
     * and the timer ran first: the gateway cut the write before its end, so it says so, rather than
     * blaming a store that was only waiting for the rest of the body.
     */
    @Test
    void aStoreTimerThatFiresAfterTheWindowClosedBeforeTheEndWentOutAnswersAdmissionExpired() {
        EmbeddedChannel client = EmbeddedClientChannel.throughGateway(
                claim -> new FenceDecision.Admitted(claim, Optional.empty()).within(closed::get), Duration.ofSeconds(10));
        others.add(client);
        client.writeInbound(Unpooled.copiedBuffer(HEAD + "01234", StandardCharsets.US_ASCII));
        client.runPendingTasks();
        assertThat(sentToStore()).startsWith("PUT /jobs/w HTTP/1.1").endsWith("01234");

        closed.set(true);
        client.advanceTimeBy(10, TimeUnit.SECONDS);
        client.runScheduledPendingTasks();

        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 503").contains("urn:fencegate:problem:admission-expired")
                .contains("the store does not apply it");
        assertThat(EmbeddedStoreChannel.OPENED.get()).allMatch(store -> !store.isOpen());
    }

    /**
     * The request's end was handed to the store connection while the window was open, but the
     * socket had no room for it; this process then paused past the window, and on waking the event
     * loop wrote what waited as soon as the socket had room, before anything else ran. Without a
     * check as the socket takes those bytes, the store would get the request whole and apply it,
     * after a higher token's write.
     */
    @Test
    void aRequestEndTheSocketHadNoRoomForIsNotSentOnceTheWindowHasClosed() {
        EmbeddedStoreChannel store = sentToAFullSocket();

        closed.set(true);
        store.takeWhatWasWritten();
        client.runPendingTasks();

        assertThat(sentToStore()).isEmpty();
        assertThat(store.isOpen()).isFalse();
        assertThat(answer()).startsWith("HTTP/1.1 503").contains("urn:fencegate:problem:admission-expired")
                .contains("the store does not apply it");
    }

    @Test
    void aRequestEndTheSocketTakesWhileTheWindowIsOpenGoesOutWhole() {
        sentToAFullSocket().takeWhatWasWritten();

        assertThat(sentToStore()).startsWith("PUT /jobs/w HTTP/1.1").endsWith("\r\n\r\n0123456789");
    }

    /**
     * A bodiless write on a kept-alive store connection goes out as its head alone (its empty end
     * is read from the client after); the window closes once the store has the head, before that
     * end comes. The store has the whole request and may apply it: taking the write for one cut
     * before its end would tell the fence its outcome is known, and the registration would go while
     * the store could still apply it after a higher token's write. The end adds no byte, so the
     * exchange goes on and the store's answer is relayed.
     */
    @Test
    void aBodilessWriteWhoseHeadWentOutBeforeItsWindowClosedIsNotTakenForOneCutBeforeItsEnd() {
        List<Boolean> outcomes = new ArrayList<>();
        SendWindow closesOnceTheStoreHasTheHead = () -> EmbeddedStoreChannel.OPENED.get().stream()
                .anyMatch(store -> !store.outboundMessages().isEmpty());
        EmbeddedChannel client = EmbeddedClientChannel.throughGateway(claim -> new FenceDecision.Admitted(claim, Optional.empty())
                .within(claim.resource().value().endsWith("/w") ? closesOnceTheStoreHasTheHead : SendWindow.OPEN),
                Duration.ofSeconds(30), outcomes::add);
        others.add(client);
        client.writeInbound(Unpooled.copiedBuffer("PUT /jobs/a HTTP/1.1\r\nHost: store\r\nFencing-Token: 5\r\nContent-Length: 1\r\n\r\nx",
                StandardCharsets.US_ASCII));
        client.runPendingTasks();
        assertThat(sentToStore()).startsWith("PUT /jobs/a").endsWith("x");
        EmbeddedStoreChannel store = EmbeddedStoreChannel.OPENED.get().get(0);
        store.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", StandardCharsets.US_ASCII));
        client.runPendingTasks();
        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 201");

        client.writeInbound(Unpooled.copiedBuffer("PUT /jobs/w HTTP/1.1\r\nHost: store\r\nFencing-Token: 5\r\nContent-Length: 0\r\n\r\n",
                StandardCharsets.US_ASCII));
        client.runPendingTasks();
        assertThat(EmbeddedStoreChannel.OPENED.get()).as("the kept-alive connection carries it").hasSize(1);
        assertThat(sentToStore()).startsWith("PUT /jobs/w HTTP/1.1").endsWith("Content-Length: 0\r\n\r\n");
        assertThat(store.isOpen()).as("the connection is not cut").isTrue();
        store.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", StandardCharsets.US_ASCII));
        client.runPendingTasks();

        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 201");
        assertThat(outcomes).containsExactly(true, true);
    }

    /**
     * The whole request went out while the window was open; the window closes while the store works
     * on it (a raise was heard), and the store's TLS then has the connection send something of its
     * own (the answer to a key update it asked for, a renegotiation's hello), written from where the
     * TLS handler sits. Nothing of the request is left to check: it goes out, and the store's
     * answer is relayed, where the connection would be reset and the write taken for one the store
     * does not apply.
     */
    @Test
    void whatTlsSendsAfterTheWholeRequestWentOutPassesTheGateAndTheAnswerIsRelayed() {
        List<Boolean> outcomes = new ArrayList<>();
        EmbeddedChannel client = EmbeddedClientChannel.throughGateway(
                claim -> new FenceDecision.Admitted(claim, Optional.empty()).within(closed::get), Duration.ofSeconds(30), outcomes::add);
        others.add(client);
        client.writeInbound(Unpooled.copiedBuffer(HEAD + "0123456789", StandardCharsets.US_ASCII));
        client.runPendingTasks();
        assertThat(sentToStore()).startsWith("PUT /jobs/w HTTP/1.1").endsWith("\r\n\r\n0123456789");
        EmbeddedStoreChannel store = EmbeddedStoreChannel.OPENED.get().get(0);

        closed.set(true);
        byte[] keyUpdate = {23, 3, 3, 0, 1, 0};
        store.pipeline().context(StoreCodec.class).writeAndFlush(Unpooled.wrappedBuffer(keyUpdate));
        client.runPendingTasks();
        assertThat(store.isOpen()).isTrue();
        assertThat(sentToStore()).isEqualTo(new String(keyUpdate, StandardCharsets.ISO_8859_1));
        store.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", StandardCharsets.US_ASCII));
        client.runPendingTasks();

        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 201");
        assertThat(outcomes).containsExactly(true);
    }

    /** The whole request, handed to a store connection whose socket takes none of it yet. */
    private EmbeddedStoreChannel sentToAFullSocket() {
        EmbeddedStoreChannel.OPEN_FULL.set(true);
        try {
            client.writeInbound(Unpooled.copiedBuffer(HEAD + "0123456789", StandardCharsets.US_ASCII));
            client.runPendingTasks();
        } finally {
            EmbeddedStoreChannel.OPEN_FULL.remove();
        }
        assertThat(EmbeddedStoreChannel.OPENED.get()).hasSize(1);
        EmbeddedStoreChannel store = EmbeddedStoreChannel.OPENED.get().get(0);
        assertThat(store.unsafe().outboundBuffer().isEmpty()).as("the request waits in the connection's buffer").isFalse();
        return store;
    }

    private String sentToStore() {
        StringBuilder wire = new StringBuilder();
        for (EmbeddedStoreChannel store : EmbeddedStoreChannel.OPENED.get()) {
            wire.append(EmbeddedClientChannel.sentTo(store));
        }
        return wire.toString();
    }

    private String answer() {
        return EmbeddedClientChannel.sentTo(client);
    }


    private EmbeddedChannel clientPipeline() {
        return EmbeddedClientChannel.throughGateway(claim -> new FenceDecision.Admitted(claim, Optional.empty()).within(closed::get));
    }
}
