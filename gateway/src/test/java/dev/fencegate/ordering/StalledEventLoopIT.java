package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.s3.S3Store;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.StoreLink;
import dev.fencegate.testing.TcpRelay;
import dev.fencegate.testing.TestPostgres;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.lang.reflect.Field;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An instance whose write to the store is held back by a full socket (the store reads nothing for
 * a while) has the end of that write queued in the gateway, not yet in the kernel. Then the
 * instance stalls as in a long GC pause: its event loops stop and its renewals fail (here its loops
 * are held by a task and its database connections cut). Its registration expires and another
 * instance lands a higher token. When the store reads again and the loops resume, an event loop
 * handles the socket's readiness before it runs its timers: the end of the old write must not go
 * out then. Rows here last 5 s (2 s upstream timeout plus 3 s).
 */
@ExtendWith(NoNettyLeaks.class)
class StalledEventLoopIT {

    /** More than the kernel keeps unsent (128 KiB) and in flight (the link's 64 KiB window), less than the gateway buffers. */
    private static final int BODY_BYTES = 384 * 1024;

    @Test
    void theEndOfAWriteQueuedBehindAFullStoreSocketIsNotSentAfterAStallPastItsRegistration() throws Exception {
        String path = "/jobs/stalled";
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback())) {
            stallWithTheWritesQueued(store.port(), "stalled_loop", Map.of(path, "PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Fencing-Token: 5\r\nContent-Length: " + BODY_BYTES + "\r\n\r\n" + "5".repeat(BODY_BYTES)));
            Thread.sleep(500);
            List<String> tokens = store.appliedTo(path).stream().map(AppliedWrite::fencingToken).toList();
            assertThat(tokens).as("the stalled write never lands after the new one").containsExactly("6");
        }
    }

    /** aws-chunked bodies S3Proxy applies on the last declared data byte: canonical, and in forms only some stores read. */
    enum Chunking {
        CANONICAL,
        /** S3Proxy takes a signed size. */
        PLUS_SIGN,
        /** S3Proxy takes any number of leading zeros. */
        SIXTEEN_DIGITS,
        /** S3Proxy drops whatever follows a chunk's data up to the CRLF. */
        TEXT_AFTER_DATA,
        /** S3Proxy ends a line only at CRLF. */
        LF_IN_EXTENSION,
        /**
         * Read as canonical, the line S3Proxy drops after the first chunk's data would be a chunk of
         * its own, and the count of data bytes would fall behind S3Proxy's: to a byte in an extra
         * chunk, behind a long extension, that S3Proxy never reads.
         */
        DROPPED_LINE_AS_A_CHUNK,
        /**
         * Marked aws-chunked, but with an {@code x-amz-content-sha256} S3Proxy does not decode: it
         * reads the body plain and takes its first declared-length bytes, size lines and all, as the object.
         */
        READ_PLAIN
    }

    /**
     * The same stall, with the body aws-chunked as the AWS SDK sends it (and in forms S3Proxy reads
     * too), to S3Proxy, which applies the object on the last byte of its declared data, before the
     * final chunk and trailer: that byte, not only the request's last, must not go out after the
     * stall. One write per form, each to an object of its own, all queued through one stall.
     */
    @Test
    void theLastDataByteOfAnAwsChunkedWriteQueuedBehindAFullStoreSocketIsNotSentAfterAStallPastItsRegistration() throws Exception {
        try (S3Store store = S3Store.anonymous(null)) {
            store.createBucket("stalled");
            Map<String, String> requests = new LinkedHashMap<>();
            for (Chunking chunking : Chunking.values()) {
                String path = "/stalled/" + key(chunking);
                requests.put(path, awsChunkedPut(path, 5, BODY_BYTES, chunking));
            }
            stallWithTheWritesQueued(store.port(), "stalled_loop_chunked", requests);
            Thread.sleep(500);
            SoftAssertions forms = new SoftAssertions();
            for (Chunking chunking : Chunking.values()) {
                forms.assertThat(store.object("stalled", key(chunking)).map(held -> held.length() > 20 ? held.substring(0, 20) + "..." : held))
                        .as("%s: the stalled write never lands after the new one", chunking).hasValue("token 6");
            }
            forms.assertAll();
        }
    }

    private static String key(Chunking chunking) {
        return chunking.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Sends each of {@code requests} (token 5 at its path), each on a connection of its own,
     * through a gateway whose link to the store on {@code storePort} reads nothing, so their ends
     * wait behind full sockets; then stalls that gateway's event loops and cuts its database
     * connections while another gateway lands token 6 at each path; then lets the store read and
     * the loops run again. Every stalled write must be answered as failed.
     */
    private static void stallWithTheWritesQueued(int storePort, String schemaOwner, Map<String, String> requests) throws Exception {
        DatabaseConfig direct = TestPostgres.config(TestPostgres.newSchema(schemaOwner));
        try (TcpRelay database = TcpRelay.toJdbc(direct.url());
             StoreLink valve = StoreLink.held(storePort)) {
            DatabaseConfig relayed = new DatabaseConfig(database.jdbcUrl(direct.url()),
                    direct.schema(), direct.user(), direct.password(), direct.poolSize(), direct.checkTimeout());
            try (Gateway stalled = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + valve.port()), relayed,
                         Duration.ofSeconds(2), Duration.ofSeconds(60), SafetyConfig.defaults()));
                 Gateway other = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + storePort), direct,
                         Duration.ofSeconds(2)))) {
                List<RawHttp> workers = new ArrayList<>();
                try {
                    for (String request : requests.values()) {
                        RawHttp worker = RawHttp.connect(stalled.port());
                        workers.add(worker);
                        worker.timeout(30_000);
                        worker.send(request);
                    }
                    for (String path : requests.keySet()) {
                        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> PausedGatewayIT.fence(direct, path) == 5);
                    }
                    Thread.sleep(500); // the whole bodies are read and handed to the store connections
                    stallWhileOthersWrite(stalled, other, database, valve, requests.keySet());
                    for (RawHttp worker : workers) {
                        String answer = worker.readResponse();
                        assertThat(RawHttp.status(answer)).as(answer).isGreaterThanOrEqualTo(500);
                    }
                } finally {
                    for (RawHttp worker : workers) {
                        worker.close();
                    }
                }
            }
        }
    }

    /** Cuts {@code stalled}'s database and holds its loops while {@code other} lands token 6 at each path; then opens the store link. */
    private static void stallWhileOthersWrite(Gateway stalled, Gateway other, TcpRelay database, StoreLink valve, Set<String> paths)
            throws Exception {
        CountDownLatch resume = new CountDownLatch(1);
        database.cut();
        try {
            for (EventExecutor loop : eventLoops(stalled)) {
                loop.execute(() -> awaitQuietly(resume));
            }
            for (String path : paths) {
                HttpResponse<String> newer = PausedGatewayIT.putUntilAnswered(other.port(), path, 6);
                assertThat(newer.statusCode()).as(path + ": " + newer.body()).isIn(200, 201, 204);
            }
            valve.open();
            Thread.sleep(300); // the kernel's share of the old writes reaches the store
        } finally {
            resume.countDown();
        }
    }

    /**
     * A PUT of {@code bytes} bytes of data, aws-chunked in 64 KiB chunks with a CRC32 trailer as
     * the AWS SDK sends it, its first chunk spelt as {@code chunking} says; 100 trailer lines S3Proxy
     * reads only after it applied the object put the data's end well before the request's.
     */
    private static String awsChunkedPut(String path, long token, int bytes, Chunking chunking) {
        String data = Long.toString(token).repeat(bytes);
        StringBuilder body = new StringBuilder();
        String rest = data;
        if (chunking == Chunking.DROPPED_LINE_AS_A_CHUNK) {
            // S3Proxy: 5 bytes, drops "\n3", then 7 bytes "\r\n2\r\nZZ"; read as canonical: 5 bytes, 3, then 2.
            body.append("5\r\n").append(data, 0, 5).append("\n3\r\n7\r\n\r\n2\r\nZZ\r\n");
            rest = data.substring(12);
            data = data.substring(0, 5) + "\r\n2\r\nZZ" + rest;
        }
        for (int at = 0; at < rest.length(); at += 64 * 1024) {
            String chunk = rest.substring(at, Math.min(rest.length(), at + 64 * 1024));
            String size = Integer.toHexString(chunk.length());
            String sizeLine = size + "\r\n";
            String after = "\r\n";
            if (at == 0) {
                switch (chunking) {
                    case PLUS_SIGN -> sizeLine = "+" + size + "\r\n";
                    case SIXTEEN_DIGITS -> sizeLine = "0".repeat(16 - size.length()) + size + "\r\n";
                    case TEXT_AFTER_DATA -> after = "x\r\n";
                    case LF_IN_EXTENSION -> sizeLine = size + ";a\nb\r\n";
                    default -> { }
                }
            }
            body.append(sizeLine).append(chunk).append(after);
        }
        if (chunking == Chunking.DROPPED_LINE_AS_A_CHUNK) {
            body.append("4;").append("e".repeat(256 * 1024)).append("\r\nMORE\r\n");
        }
        CRC32 crc = new CRC32();
        crc.update(data.getBytes(StandardCharsets.US_ASCII));
        String checksum = Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
        body.append("0\r\n");
        for (int i = 0; i < 100; i++) {
            body.append("x-amz-meta-pad").append(i).append(':').append("p".repeat(4000)).append("\r\n");
        }
        body.append("x-amz-checksum-crc32:").append(checksum).append("\r\n\r\n");
        return "PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: " + token + "\r\n"
                + "x-amz-content-sha256: " + (chunking == Chunking.READ_PLAIN ? "UNSIGNED-PAYLOAD" : "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
                + "\r\nContent-Encoding: aws-chunked\r\n"
                + "x-amz-decoded-content-length: " + bytes + "\r\nx-amz-trailer: x-amz-checksum-crc32\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body;
    }

    private static Iterable<EventExecutor> eventLoops(Gateway gateway) throws ReflectiveOperationException {
        Field server = Gateway.class.getDeclaredField("server");
        server.setAccessible(true);
        Object gatewayServer = server.get(gateway);
        Field group = gatewayServer.getClass().getDeclaredField("group");
        group.setAccessible(true);
        return (EventLoopGroup) group.get(gatewayServer);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
