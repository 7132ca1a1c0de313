package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceDecision;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslCloseCompletionEvent;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a store sends that is not a well-framed answer to the request on its connection never
 * reaches another request: an answer that stops reading as HTTP is cut and its connection dropped,
 * and bytes arriving on an idle connection retire it.
 */
class StoreAnswerFramingTest {

    private final EmbeddedChannel client = EmbeddedClientChannel.throughGateway(claim -> new FenceDecision.Admitted(claim, Optional.empty()));

    @AfterEach
    void release() {
        client.finishAndReleaseAll();
        EmbeddedStoreChannel.OPENED.get().forEach(EmbeddedChannel::finishAndReleaseAll);
        EmbeddedStoreChannel.OPENED.get().clear();
    }

    @Test
    void anAnswerThatStopsReadingAsHttpIsCutAndItsConnectionIsNotReused() {
        EmbeddedStoreChannel store = forwarded("GET /b/report HTTP/1.1\r\nHost: store\r\n\r\n");

        store.writeInbound(EmbeddedClientChannel.ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZ\r\n"));
        client.runPendingTasks();

        assertThat(store.isOpen()).as("the store connection").isFalse();
        assertThat(client.isOpen()).as("the client connection, its answer cut short").isFalse();
        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 200 OK").doesNotContain("\r\n0\r\n\r\n");
    }

    @Test
    void anAnswerWhoseStatusLineIsNotHttpGets502AndItsConnectionIsNotReused() {
        EmbeddedStoreChannel store = forwarded("GET /b/report HTTP/1.1\r\nHost: store\r\n\r\n");

        store.writeInbound(EmbeddedClientChannel.ascii("XTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
        client.runPendingTasks();

        assertThat(store.isOpen()).as("the store connection").isFalse();
        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 502").contains("urn:fencegate:problem:store-answer-unreadable");
    }

    @Test
    void bytesAStoreSendsOnAnIdleConnectionRetireIt() {
        EmbeddedStoreChannel store = forwarded("HEAD /b/report HTTP/1.1\r\nHost: store\r\n\r\n");
        store.writeInbound(EmbeddedClientChannel.ascii("HTTP/1.1 200 OK\r\nContent-Length: 33\r\n\r\n"));
        client.runPendingTasks();
        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 200 OK");
        assertThat(store.isOpen()).as("kept for the next request").isTrue();

        // The start of a head, which the decoder alone would keep until the next answer completed it.
        store.writeInbound(EmbeddedClientChannel.ascii("HTTP/1.1 403 Forbidden\r\nX-Junk: "));
        client.writeInbound(EmbeddedClientChannel.ascii("GET /b/other HTTP/1.1\r\nHost: store\r\n\r\n"));
        client.runPendingTasks();

        assertThat(store.isOpen()).isFalse();
        assertThat(EmbeddedStoreChannel.OPENED.get()).hasSize(2);
        EmbeddedStoreChannel next = EmbeddedStoreChannel.OPENED.get().get(1);
        assertThat(EmbeddedClientChannel.sentTo(next)).startsWith("GET /b/other HTTP/1.1");
        next.writeInbound(EmbeddedClientChannel.ascii("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
        client.runPendingTasks();
        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 200 OK").endsWith("ok");
    }

    /** Of a head begun after an answer that ended on its own, the decoder would read the connection's next answer as the rest. */
    @Test
    void theStartOfAHeadSentInTheSameReadAsAnAnswerRetiresTheConnection() {
        EmbeddedStoreChannel store = forwarded("PUT /b/report HTTP/1.1\r\nHost: store\r\nFencing-Token: 5\r\nContent-Length: 2\r\n\r\nok");

        store.writeInbound(EmbeddedClientChannel.ascii("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nX-Pad: "));
        client.runPendingTasks();

        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 201 Created");
        assertThat(store.isOpen()).as("the store connection").isFalse();
        client.writeInbound(EmbeddedClientChannel.ascii("PUT /b/report HTTP/1.1\r\nHost: store\r\nFencing-Token: 6\r\nContent-Length: 2\r\n\r\nok"));
        client.runPendingTasks();
        assertThat(EmbeddedStoreChannel.OPENED.get()).hasSize(2);
        EmbeddedStoreChannel next = EmbeddedStoreChannel.OPENED.get().get(1);
        EmbeddedClientChannel.sentTo(next);
        next.writeInbound(EmbeddedClientChannel.ascii("HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\n\r\n"));
        client.runPendingTasks();
        assertThat(EmbeddedClientChannel.sentTo(client)).startsWith("HTTP/1.1 412 Precondition Failed");
    }

    /** A TLS store that sent close_notify and kept TCP open reads nothing more: a request sent on it would wait out its timeout. */
    @Test
    void aStoreThatClosedItsSideOfTlsRetiresTheIdleConnection() {
        EmbeddedStoreChannel store = forwarded("GET /b/report HTTP/1.1\r\nHost: store\r\n\r\n");
        store.writeInbound(EmbeddedClientChannel.ascii("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
        client.runPendingTasks();
        EmbeddedClientChannel.sentTo(client);
        assertThat(store.isOpen()).as("kept for the next request").isTrue();

        store.pipeline().fireUserEventTriggered(SslCloseCompletionEvent.SUCCESS);

        assertThat(store.isOpen()).isFalse();
    }

    /** The store connection {@code request} went out on, what it sent there read. */
    private EmbeddedStoreChannel forwarded(String request) {
        client.writeInbound(EmbeddedClientChannel.ascii(request));
        client.runPendingTasks();
        EmbeddedStoreChannel store = onlyStore();
        EmbeddedClientChannel.sentTo(store);
        return store;
    }

    private static EmbeddedStoreChannel onlyStore() {
        List<EmbeddedStoreChannel> opened = EmbeddedStoreChannel.OPENED.get();
        assertThat(opened).hasSize(1);
        return opened.get(0);
    }
}
