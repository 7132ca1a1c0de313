package dev.fencegate.demo;

import static dev.fencegate.demo.StoreClient.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.fencegate.testing.NoNettyLeaks;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Framing, flow and configuration corners of the store. */
@ExtendWith(NoNettyLeaks.class)
class MemoryObjectStoreEdgeTest {


    private final List<MemoryObjectStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores() {
        stores.forEach(MemoryObjectStore::close);
    }

    private MemoryObjectStore start(MemoryObjectStore.Options options) {
        MemoryObjectStore store = MemoryObjectStore.start(options);
        stores.add(store);
        return store;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void pipelinedRequestsAreAnsweredInRequestOrderWhileAWriteIsHeld(boolean discard) throws IOException {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback().withDiscard(discard)
                .withWriteDelay(Duration.ofMillis(200), Duration.ofMillis(200)));
        String requests = "PUT /p HTTP/1.1\r\nHost: store\r\nContent-Length: 3\r\n\r\nabc"
                + "GET /p HTTP/1.1\r\nHost: store\r\nConnection: close\r\n\r\n";

        String answers;
        try (Socket socket = new Socket("127.0.0.1", store.port())) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write(requests.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            answers = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }

        String second = discard ? "HTTP/1.1 404 Not Found" : "HTTP/1.1 200 OK";
        assertThat(answers).startsWith("HTTP/1.1 201 Created").contains(second);
        assertThat(answers.indexOf(second)).isGreaterThan(answers.indexOf("201 Created"));
        if (!discard) {
            assertThat(answers).endsWith("\r\n\r\nabc");
        }
        assertThat(store.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void aBodyOverTheLimitIs413AndTheClientCanGoOn() {
        MemoryObjectStore store = start(new MemoryObjectStore.Options("127.0.0.1", 0, false,
                Duration.ZERO, Duration.ZERO, 1024));
        StoreClient client = new StoreClient(store);

        assertThat(client.put("/too-big", "x".repeat(4096)).statusCode()).isEqualTo(413);
        assertThat(client.put("/fits", "x".repeat(1024)).statusCode()).isEqualTo(201);
        assertThat(store.object("/too-big")).isEmpty();
        assertThat(store.applied()).extracting(AppliedWrite::path).containsExactly("/fits");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void expectContinueIsHonoured(boolean discard) {
        StoreClient client = new StoreClient(start(MemoryObjectStore.Options.loopback().withDiscard(discard)));

        assertThat(client.send(client.request("/c").expectContinue(true).PUT(text("body"))).statusCode())
                .isEqualTo(201);
    }

    @Test
    void clearForgetsObjectsTheLogAndTheRequestCountButNotTheSequence() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback());
        StoreClient client = new StoreClient(store);
        client.put("/a", "1");
        client.put("/b", "2");

        store.clear();
        client.put("/c", "3");

        assertThat(store.object("/a")).isEmpty();
        assertThat(store.applied()).extracting(AppliedWrite::path, AppliedWrite::sequence)
                .containsExactly(tuple("/c", 3L));
        assertThat(store.requestCount()).isEqualTo(1);
    }

    @Test
    void objectReturnsACopy() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback());
        new StoreClient(store).put("/copy", "abc");

        store.object("/copy").orElseThrow()[0] = 'z';

        assertThat(store.object("/copy")).hasValueSatisfying(bytes -> assertThat(bytes).asString().isEqualTo("abc"));
    }

    @Test
    void awaitClosedReturnsOnceClosed() throws Exception {
        MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            try {
                store.awaitClosed();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        store.close();

        waiting.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aTakenPortIsReportedWithTheAddress() {
        MemoryObjectStore first = start(MemoryObjectStore.Options.loopback());

        assertThatThrownBy(() -> MemoryObjectStore.start(
                new MemoryObjectStore.Options("127.0.0.1", first.port(), false, Duration.ZERO, Duration.ZERO)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("127.0.0.1:" + first.port());
    }

    @Test
    void optionsSayWhatTheyExpected() {
        Duration second = Duration.ofSeconds(1);
        assertThatThrownBy(() -> new MemoryObjectStore.Options(" ", 0, false, second, second))
                .hasMessage("host: ' ' (expected: a host name or address)");
        assertThatThrownBy(() -> new MemoryObjectStore.Options("h", 70_000, false, second, second))
                .hasMessage("port: 70000 (expected: 0-65535, 0 for any free port)");
        assertThatThrownBy(() -> new MemoryObjectStore.Options("h", 0, false, second.negated(), second))
                .hasMessage("writeDelayMin: PT-1S (expected: zero or more)");
        assertThatThrownBy(() -> new MemoryObjectStore.Options("h", 0, false, second, Duration.ZERO))
                .hasMessage("writeDelayMax: PT0S (expected: at least writeDelayMin, PT1S)");
        assertThatThrownBy(() -> new MemoryObjectStore.Options("h", 0, false, second, second, 0))
                .hasMessage("maxBodyBytes: 0 (expected: more than 0)");
    }
}
