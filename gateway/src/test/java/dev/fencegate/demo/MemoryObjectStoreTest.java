package dev.fencegate.demo;

import static dev.fencegate.demo.StoreClient.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.fencegate.testing.NoNettyLeaks;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(NoNettyLeaks.class)
class MemoryObjectStoreTest {

    private static final int MIB = 1024 * 1024;

    private final List<MemoryObjectStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores() {
        stores.forEach(MemoryObjectStore::close);
    }

    private MemoryObjectStore start(MemoryObjectStore.Options options) {
        return track(MemoryObjectStore.start(options));
    }

    private MemoryObjectStore track(MemoryObjectStore store) {
        stores.add(store);
        return store;
    }

    @Test
    void putThenGetRoundTripsTheBodyAndContentType() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback());
        StoreClient client = new StoreClient(store);

        HttpResponse<byte[]> created = client.send(client.request("/bucket/a?version=1")
                .header("Content-Type", "text/plain").header("Fencing-Token", "7").header("Fencing-Holder", "w1")
                .PUT(text("hello")));
        HttpResponse<byte[]> read = client.get("/bucket/a");
        HttpResponse<byte[]> head = client.method("HEAD", "/bucket/a");
        HttpResponse<byte[]> replaced = client.put("/bucket/a", "bye");

        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(text(read)).isEqualTo("hello");
        assertThat(read.headers().firstValue("Content-Type")).hasValue("text/plain");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue("Content-Length")).hasValue("5");
        assertThat(head.body()).isEmpty();
        assertThat(replaced.statusCode()).isEqualTo(204);
        assertThat(store.object("/bucket/a")).hasValueSatisfying(bytes -> assertThat(bytes).asString().isEqualTo("bye"));
        assertThat(store.applied()).extracting(AppliedWrite::sequence, AppliedWrite::method, AppliedWrite::path,
                        AppliedWrite::fencingToken, AppliedWrite::fencingHolder, AppliedWrite::bodyLength)
                .containsExactly(
                        tuple(1L, "PUT", "/bucket/a", "7", "w1", 5L),
                        tuple(2L, "PUT", "/bucket/a", null, null, 3L));
        assertThat(store.requestCount()).isEqualTo(4);
    }

    @Test
    void chunkedUploadIsStoredWhole() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback());
        StoreClient client = new StoreClient(store);
        byte[] body = new byte[3 * MIB + 17];
        new Random(42).nextBytes(body);

        // An InputStream publisher has no length, so the JDK client sends Transfer-Encoding: chunked.
        HttpResponse<byte[]> response = client.send(client.request("/chunked")
                .POST(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))));

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(store.object("/chunked")).hasValueSatisfying(stored -> assertThat(stored).isEqualTo(body));
        assertThat(store.appliedTo("/chunked")).singleElement()
                .satisfies(write -> assertThat(write.method()).isEqualTo("POST"))
                .satisfies(write -> assertThat(write.bodyLength()).isEqualTo(body.length));
    }

    @Test
    void deleteRemovesTheObjectAndAMissingOneIs404() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback());
        StoreClient client = new StoreClient(store);
        client.put("/doomed", "x");

        assertThat(client.method("DELETE", "/doomed").statusCode()).isEqualTo(204);
        assertThat(client.get("/doomed").statusCode()).isEqualTo(404);
        assertThat(client.method("HEAD", "/doomed").statusCode()).isEqualTo(404);
        assertThat(client.method("DELETE", "/doomed").statusCode()).isEqualTo(404);
        assertThat(store.object("/doomed")).isEmpty();
        // The second DELETE changed nothing, so only two writes were applied.
        assertThat(store.appliedTo("/doomed")).extracting(AppliedWrite::method).containsExactly("PUT", "DELETE");
    }

    @Test
    void getOfAnObjectNeverWrittenIs404() {
        StoreClient client = new StoreClient(start(MemoryObjectStore.Options.loopback()));

        assertThat(client.get("/nothing/here").statusCode()).isEqualTo(404);
    }

    @Test
    void otherMethodsAre405AndNameTheAllowedOnes() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback());
        StoreClient client = new StoreClient(store);

        HttpResponse<byte[]> patch = client.send(client.request("/p").method("PATCH", text("x")));

        assertThat(patch.statusCode()).isEqualTo(405);
        assertThat(patch.headers().firstValue("Allow")).hasValue("GET, HEAD, PUT, POST, DELETE");
        assertThat(client.method("OPTIONS", "/p").statusCode()).isEqualTo(405);
        assertThat(store.applied()).isEmpty();
    }

    @Test
    void aWriteIsAppliedOnlyAfterItsDelay() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback()
                .withWriteDelay(Duration.ofMillis(300), Duration.ofMillis(400)));
        StoreClient client = new StoreClient(store);

        long sentAt = System.nanoTime();
        CompletableFuture<HttpResponse<byte[]>> put = client.sendAsync(client.request("/slow").PUT(text("v")));
        await().atMost(Duration.ofSeconds(5)).until(() -> store.requestCount() == 1);
        assertThat(store.object("/slow")).isEmpty();
        assertThat(store.applied()).isEmpty();

        assertThat(put.join().statusCode()).isEqualTo(201);
        assertThat(Duration.ofNanos(System.nanoTime() - sentAt)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(store.applied()).singleElement()
                .satisfies(write -> assertThat(write.appliedAtNanos() - sentAt).isGreaterThanOrEqualTo(300_000_000L));
    }

    @Test
    void theApplyLogFollowsApplyOrderNotSendOrder() {
        Queue<Duration> delays = new ConcurrentLinkedQueue<>(List.of(Duration.ofMillis(500), Duration.ZERO));
        AtomicInteger drawn = new AtomicInteger();
        MemoryObjectStore store = track(MemoryObjectStore.start(MemoryObjectStore.Options.loopback(), () -> {
            drawn.incrementAndGet();
            return delays.remove().toNanos();
        }));
        StoreClient client = new StoreClient(store);

        CompletableFuture<HttpResponse<byte[]>> stale = client.sendAsync(client.request("/x")
                .header("Fencing-Token", "1").header("Fencing-Holder", "old").PUT(text("from the old holder")));
        await().atMost(Duration.ofSeconds(5)).until(() -> drawn.get() == 1);
        HttpResponse<byte[]> fresh = client.send(client.request("/x")
                .header("Fencing-Token", "2").header("Fencing-Holder", "new").PUT(text("from the new holder")));

        assertThat(fresh.statusCode()).isEqualTo(201);
        assertThat(stale.join().statusCode()).isEqualTo(204);
        List<AppliedWrite> log = store.appliedTo("/x");
        assertThat(log).extracting(AppliedWrite::fencingToken).containsExactly("2", "1");
        assertThat(log).extracting(AppliedWrite::sequence).containsExactly(1L, 2L);
        assertThat(log.get(0).appliedAtNanos()).isLessThan(log.get(1).appliedAtNanos());
        // The very hazard fencing exists for: the stale write landed last.
        assertThat(store.object("/x")).hasValueSatisfying(
                bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("from the old holder"));
    }

    @Test
    void discardModeStoresNothingAndAnswers2xx() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback().withDiscard(true));
        StoreClient client = new StoreClient(store);

        assertThat(client.put("/d", "body").statusCode()).isEqualTo(201);
        assertThat(client.send(client.request("/d").POST(text("more"))).statusCode()).isEqualTo(201);
        assertThat(client.method("DELETE", "/d").statusCode()).isEqualTo(204);
        assertThat(client.get("/d").statusCode()).isEqualTo(404);
        assertThat(store.object("/d")).isEmpty();
        assertThat(store.applied()).isEmpty();
        assertThat(store.requestCount()).isEqualTo(4);
    }

    @Test
    void sequentialRequestsReuseAKeptAliveConnection() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback());
        StoreClient client = new StoreClient(store);

        for (int i = 0; i < 20; i++) {
            assertThat(client.put("/k/" + i, "v" + i).statusCode()).isEqualTo(201);
            assertThat(text(client.get("/k/" + i))).isEqualTo("v" + i);
        }

        assertThat(store.requestCount()).isEqualTo(40);
        assertThat(store.connectionsAccepted()).isBetween(1, 2);
    }

    @Test
    void discardModeStreamsA200MibUpload() {
        MemoryObjectStore store = start(MemoryObjectStore.Options.loopback().withDiscard(true));
        StoreClient client = new StoreClient(store);
        long length = 200L * MIB;
        // One 1 MiB array sent 200 times: the test itself never holds the whole body either.
        List<byte[]> chunks = Collections.nCopies(200, new byte[MIB]);

        HttpResponse<byte[]> response = client.send(client.request("/big")
                .PUT(BodyPublishers.fromPublisher(BodyPublishers.ofByteArrays(chunks), length)));

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(store.object("/big")).isEmpty();
        assertThat(store.applied()).isEmpty();
    }
}
