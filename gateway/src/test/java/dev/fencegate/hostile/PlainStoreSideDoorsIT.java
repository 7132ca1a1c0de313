package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.StoreKind;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.ApacheWebDav;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NginxWebDav;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Side doors of the {@code webdav} and {@code http} store kinds, tried on real stores: a POST that
 * looks like S3's DeleteObjects to a store that takes it for a write of its path, a PUT of a
 * byte range that a store writes in place, a Host the store serves another folder under, and the
 * name a store copies a PUT's body to beside its object.
 */
class PlainStoreSideDoorsIT {

    private static final String DELETE_BODY = "<Delete><Object><Key>stale-row</Key></Object></Delete>";

    private static int send(int port, String method, String target, long token, String body) throws Exception {
        try (RawHttp raw = RawHttp.connect(port)) {
            return RawHttp.status(raw.send(method + " " + target + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: " + token
                    + "\r\nContent-Type: text/csv\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
                    + "\r\nConnection: close\r\n\r\n" + body).readResponse());
        }
    }

    private static GatewayConfig config(URI upstream, StoreKind kind, String schema) {
        GatewayConfig base = GatewayHarness.config(upstream, TestPostgres.config(TestPostgres.newSchema(schema)), Duration.ofSeconds(10));
        return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(),
                base.limits().withStoreKind(kind, "localhost"), base.safety(), base.ioThreads());
    }

    /**
     * {@code POST /report.csv?delete} has S3's DeleteObjects shape, but a store that is not S3 (the
     * in-memory store here, as many HTTP write APIs) takes it for a write of {@code /report.csv}.
     * Under {@code http} that path is fenced beside the body's keys (under {@code webdav}, where
     * only an S3 store would read it, such a POST is refused outright).
     */
    @ParameterizedTest(name = "--store-kind {0}")
    @EnumSource(value = StoreKind.class, names = {"HTTP"})
    void aStalePostShapedLikeDeleteObjectsIsRefusedAsAWriteOfItsPath(StoreKind kind) throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(),
                upstream -> config(upstream, kind, "post_delete_" + kind.name().toLowerCase()))) {
            assertThat(send(gateway.port(), "PUT", "/report.csv", 10, "current")).isBetween(200, 299);

            assertThat(send(gateway.port(), "POST", "/report.csv?delete", 5, DELETE_BODY)).isEqualTo(412);
            assertThat(send(gateway.port(), "POST", "/report.csv?x&%64elete", 5, DELETE_BODY)).isEqualTo(412);

            assertThat(gateway.store.object("/report.csv").map(b -> new String(b, StandardCharsets.UTF_8))).hasValue("current");
            assertThat(send(gateway.port(), "POST", "/report.csv?delete", 10, DELETE_BODY)).as("the current holder's POST")
                    .isBetween(200, 299);
        }
    }

    /**
     * Apache mod_dav writes a PUT with {@code Content-Range} in place, not to a temporary file, so
     * the part it received before the gateway cut the write (here a malformed chunk; as well a
     * closed send window, a stalled client, the body limit) would stay applied. Such a PUT is
     * refused before anything reaches the store.
     */
    @ParameterizedTest(name = "--store-kind {0}")
    @EnumSource(value = StoreKind.class, names = {"HTTP", "WEBDAV"})
    void aWriteOfAByteRangeIsRefusedAndTheObjectStaysAsItWas(StoreKind kind) throws Exception {
        try (ApacheWebDav apache = ApacheWebDav.start(false)) {
            Gateway gateway = Gateway.start(config(URI.create("http://127.0.0.1:" + apache.port()), kind,
                    "content_range_" + kind.name().toLowerCase()));
            try {
                assertThat(send(gateway.port(), "PUT", "/cr", 10, "AAAAAAAAAA")).isBetween(200, 299);
                String response;
                try (RawHttp raw = RawHttp.connect(gateway.port())) {
                    raw.send("PUT /cr HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 10\r\nContent-Range: bytes 0-9/10\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n5\r\nBBBBB\r\n");
                    Thread.sleep(1000);
                    response = raw.send("zz\r\nCCCCC\r\n0\r\n\r\n").readResponse();
                }
                assertThat(RawHttp.status(response)).isEqualTo(400);
                Thread.sleep(300); // what the store received before the cut, it writes as it reads
                assertThat(apache.objects()).containsEntry("/cr", "AAAAAAAAAA");
            } finally {
                gateway.close();
            }
        }
    }

    /**
     * The store serves a second name whose root is the folder of bucket {@code b}: {@code PUT /k}
     * with that Host is its {@code /b/k}. The resource leaves the Host out under these kinds, so
     * the gateway sends the store the {@code --upstream} host instead of the client's: a stale
     * write through the other name writes {@code /k} of the namespace the fences are for, not
     * the fenced {@code /b/k}.
     */
    @ParameterizedTest(name = "--store-kind {0} behind nginx dav")
    @EnumSource(value = StoreKind.class, names = {"HTTP", "WEBDAV"})
    void aStaleWriteThroughAnotherHostOfTheStoreChangesNothingFenced(StoreKind kind) throws Exception {
        try (NginxWebDav nginx = NginxWebDav.start()) {
            Gateway gateway = Gateway.start(config(URI.create("http://127.0.0.1:" + nginx.port()), kind,
                    "store_host_" + kind.name().toLowerCase()));
            try {
                assertThat(send(gateway.port(), "PUT", "/b/k", 10, "current")).isBetween(200, 299);
                assertThat(nginx.objects()).containsEntry("/b/k", "current");
                for (String method : new String[] {"PUT", "DELETE"}) {
                    String body = method.equals("PUT") ? "stale" : "";
                    try (RawHttp raw = RawHttp.connect(gateway.port())) {
                        raw.send(method + " /k HTTP/1.1\r\nHost: " + NginxWebDav.BUCKET_B_HOST + "\r\nFencing-Token: 3\r\n"
                                + "Content-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body).readResponse();
                    }
                    assertThat(nginx.objects()).as("after a stale %s /k with Host %s", method, NginxWebDav.BUCKET_B_HOST)
                            .containsEntry("/b/k", "current");
                }
            } finally {
                gateway.close();
            }
        }
    }

    /**
     * nginx keeps a PUT's body in {@code client_body_temp_path}; on another file system than its
     * root, it cannot rename the body onto the object, so it copies it to
     * {@code <object>.<10 digits>} beside the object and renames that. A stale write of that name
     * while the copy runs (served by nginx's other worker) replaced the file, and nginx's rename
     * made it the holder's object: the holder got its 2xx and the object held the stale bytes.
     * Such a name is refused, and the object is the holder's.
     */
    @ParameterizedTest(name = "--store-kind {0} behind nginx dav")
    @EnumSource(value = StoreKind.class, names = {"HTTP", "WEBDAV"})
    void aStaleWriteOfTheNameNginxCopiesAPutToIsRefusedAndTheObjectIsTheHolders(StoreKind kind) throws Exception {
        long size = 256L << 20;
        try (NginxWebDav nginx = NginxWebDav.startCopyingBodies()) {
            Gateway gateway = Gateway.start(config(URI.create("http://127.0.0.1:" + nginx.port()), kind,
                    "nginx_copy_" + kind.name().toLowerCase()));
            try {
                assertThat(send(gateway.port(), "PUT", "/b/report", 10, "first")).isBetween(200, 299);
                CompletableFuture<Integer> holder = CompletableFuture.supplyAsync(() -> largePut(gateway.port(), "/b/report", 10, size));

                Path folder = nginx.file("/b");
                Optional<String> copyName = Optional.empty();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (copyName.isEmpty() && !holder.isDone() && System.nanoTime() < deadline) {
                    try (Stream<Path> files = Files.list(folder)) {
                        copyName = files.map(file -> file.getFileName().toString())
                                .filter(name -> name.matches("report\\.[0-9]{10}")).findFirst();
                    }
                }
                assertThat(copyName).as("nginx copied the body beside the object").isPresent();
                int stale = send(gateway.port(), "PUT", "/b/" + copyName.get(), 5, "STALE");

                assertThat(holder.get(120, TimeUnit.SECONDS)).as("the holder's PUT").isBetween(200, 299);
                assertThat(stale).as("the stale write of " + copyName.get()).isEqualTo(400);
                Path object = nginx.file("/b/report");
                assertThat(Files.size(object)).as("the object is the holder's").isEqualTo(size);
                try (InputStream in = Files.newInputStream(object)) {
                    assertThat(in.readNBytes(5)).isEqualTo("HHHHH".getBytes(StandardCharsets.US_ASCII));
                }
            } finally {
                gateway.close();
            }
        }
    }

    /** A PUT of {@code size} bytes of 'H', streamed; its status. */
    private static int largePut(int port, String target, long token, long size) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(120_000);
            OutputStream out = socket.getOutputStream();
            out.write(("PUT " + target + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: " + token + "\r\nContent-Length: " + size
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            byte[] block = new byte[1 << 20];
            Arrays.fill(block, (byte) 'H');
            for (long sent = 0; sent < size; sent += block.length) {
                out.write(block, 0, (int) Math.min(block.length, size - sent));
            }
            out.flush();
            String status = new String(socket.getInputStream().readNBytes(12), StandardCharsets.ISO_8859_1);
            return Integer.parseInt(status.substring(9, 12));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The store is asked under its own host, so the URLs it writes into its answers name that
     * host: given back the client's, they lead through the gateway, not past it to the store.
     */
    @ParameterizedTest(name = "--store-kind {0} behind apache mod_dav")
    @EnumSource(value = StoreKind.class, names = {"HTTP", "WEBDAV"})
    void theStoresOwnUrlsInItsAnswersNameTheHostTheClientAskedFor(StoreKind kind) throws Exception {
        try (ApacheWebDav apache = ApacheWebDav.start(true)) {
            Gateway gateway = Gateway.start(config(URI.create("http://127.0.0.1:" + apache.port()), kind,
                    "store_urls_" + kind.name().toLowerCase()));
            try {
                for (String collection : new String[] {"/b/", "/b/dir/"}) {
                    try (RawHttp raw = RawHttp.connect(apache.port())) {
                        raw.send("MKCOL " + collection + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n"
                                + "Connection: close\r\n\r\n").readResponse();
                    }
                }
                String created;
                String redirected;
                try (RawHttp raw = RawHttp.connect(gateway.port())) {
                    created = raw.send("PUT /b/new HTTP/1.1\r\nHost: files.example.com:8443\r\nFencing-Token: 1\r\n"
                            + "Content-Type: text/csv\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx").readResponse();
                }
                try (RawHttp raw = RawHttp.connect(gateway.port())) {
                    redirected = raw.send("GET /b/dir HTTP/1.1\r\nHost: files.example.com:8443\r\nConnection: close\r\n\r\n")
                            .readResponse();
                }
                // The header fields, not a body's HTML, which is the store's text, as behind nginx's proxy_redirect.
                assertThat(RawHttp.status(created)).isEqualTo(201);
                assertThat(head(created)).containsIgnoringCase("Location: http://files.example.com:8443/b/new")
                        .doesNotContain("127.0.0.1:" + apache.port());
                assertThat(RawHttp.status(redirected)).isEqualTo(301);
                assertThat(head(redirected)).containsIgnoringCase("Location: http://files.example.com:8443/b/dir/")
                        .doesNotContain("127.0.0.1:" + apache.port());
            } finally {
                gateway.close();
            }
        }
    }

    private static String head(String response) {
        int end = response.indexOf("\r\n\r\n");
        return end < 0 ? response : response.substring(0, end);
    }
}
