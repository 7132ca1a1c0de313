package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.StoreKind;
import dev.fencegate.testing.ApacheWebDav;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.LiteralStore;
import dev.fencegate.testing.NginxWebDav;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.RcloneWebDav;
import dev.fencegate.testing.TestPostgres;
import dev.fencegate.testing.WebDavStore;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A DELETE naming a collection without its trailing '/' is fenced as one resource, {@code /b/dir};
 * a WebDAV store that serves the collection at that name too (Apache mod_dav without
 * DirectorySlash) would delete every object under it, each fenced on its own. The gateway forwards
 * DELETEs with {@code Depth: 0}, which such a store refuses for a collection, so a stale writer
 * deletes nothing fenced above it; nginx refuses the name without a slash itself. A store that
 * ignores Depth (Go's WebDAV, here rclone's) is asked first whether the name is a collection.
 */
class CollectionDeleteIT {

    private static int send(int port, String method, String target, long token) throws Exception {
        return send(port, method, target, token, "close");
    }

    private static int send(int port, String method, String target, long token, String connection) throws Exception {
        try (RawHttp raw = RawHttp.connect(port)) {
            return RawHttp.status(raw.send(method + " " + target + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: " + token
                    + "\r\nContent-Length: " + (method.equals("PUT") ? 7 : 0) + "\r\nConnection: " + connection + "\r\n\r\n"
                    + (method.equals("PUT") ? "current" : "")).readResponse());
        }
    }

    private static int direct(int port, String method, String target) throws Exception {
        try (RawHttp raw = RawHttp.connect(port)) {
            return RawHttp.status(raw.send(method + " " + target + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .readResponse());
        }
    }

    private static Gateway gateway(int storePort, StoreKind kind) throws InterruptedException {
        GatewayConfig base = GatewayHarness.config(URI.create("http://127.0.0.1:" + storePort),
                TestPostgres.config(TestPostgres.newSchema("collection_delete_" + kind.value().replace('-', '_'))), Duration.ofSeconds(10));
        return Gateway.start(new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(),
                base.limits().withStoreKind(kind, "localhost"), base.safety(), base.ioThreads()));
    }

    @ParameterizedTest(name = "{0} behind apache mod_dav, mod_dir {1}")
    @CsvSource({"webdav,false", "http,false", "webdav,true"})
    void aStaleDeleteOfACollectionNamedWithoutItsSlashRemovesNothingFencedAbove(String kindName, boolean modDir) throws Exception {
        StoreKind kind = kindName.equals("webdav") ? StoreKind.WEBDAV : StoreKind.HTTP;
        try (ApacheWebDav apache = ApacheWebDav.start(modDir)) {
            Gateway gateway = gateway(apache.port(), kind);
            try {
                // The collections exist at the store (made by an operator; MKCOL is not served by the gateway).
                assertThat(direct(apache.port(), "MKCOL", "/b/")).isEqualTo(201);
                assertThat(direct(apache.port(), "MKCOL", "/b/dir/")).isEqualTo(201);
                // The current holder writes the object with token 10: its fence is 10.
                assertThat(send(gateway.port(), "PUT", "/b/dir/report", 10)).isBetween(200, 299);
                assertThat(apache.objects()).containsEntry("/b/dir/report", "current");
                // A DELETE of an object, with Depth: 0, still deletes it.
                assertThat(send(gateway.port(), "PUT", "/b/dir/old", 10)).isBetween(200, 299);
                assertThat(send(gateway.port(), "DELETE", "/b/dir/old", 10)).isBetween(200, 299);
                assertThat(apache.objects()).doesNotContainKey("/b/dir/old");
                // A stale write of the object itself is refused, as promised.
                assertThat(send(gateway.port(), "DELETE", "/b/dir/report", 3)).isEqualTo(412);
                assertThat(send(gateway.port(), "DELETE", "/b/dir/", 3)).isEqualTo(400);
                // The attack: the same stale token, on the collection's name without its slash.
                int status = send(gateway.port(), "DELETE", "/b/dir", 3);
                Map<String, String> after = apache.objects();
                assertThat(after).as("DELETE /b/dir answered %s; object fenced at 10 must survive a token-3 write", status)
                        .containsEntry("/b/dir/report", "current");
            } finally {
                gateway.close();
            }
        }
    }

    /**
     * An S3 kind in front of a WebDAV store, set by mistake (s3-path is the default): the S3 kinds
     * fence {@code /b/dir/} as {@code /b/dir}, a new fence any token passes, and the store deleted
     * the whole collection, objects fenced above the token included. S3 reads no Depth, so every
     * DELETE goes with {@code Depth: 0}, which nginx and Apache refuse for a collection.
     */
    @ParameterizedTest(name = "{0} in front of {1}")
    @CsvSource({"s3-path,nginx", "s3-path,apache", "s3-virtual-host,nginx"})
    void underAnS3KindAStaleDeleteOfAWebDavCollectionRemovesNothingFencedAbove(String kindName, String server) throws Exception {
        StoreKind kind = StoreKind.parse(kindName);
        try (WebDavStore store = server.equals("nginx") ? NginxWebDav.start() : ApacheWebDav.start(false)) {
            Gateway gateway = gateway(store.port(), kind);
            try {
                assertThat(direct(store.port(), "MKCOL", "/b/")).isEqualTo(201);
                assertThat(direct(store.port(), "MKCOL", "/b/dir/")).isEqualTo(201);
                assertThat(send(gateway.port(), "PUT", "/b/dir/report", 10)).isBetween(200, 299);
                assertThat(send(gateway.port(), "PUT", "/b/dir/old", 10)).isBetween(200, 299);
                assertThat(send(gateway.port(), "DELETE", "/b/dir/old", 10)).as("an object's DELETE").isBetween(200, 299);
                assertThat(store.objects()).doesNotContainKey("/b/dir/old");

                for (String collection : List.of("/b/dir/", "/b/dir")) {
                    int status = send(gateway.port(), "DELETE", collection, 3);
                    assertThat(store.objects()).as("DELETE %s answered %s; the object fenced at 10 must survive a token-3 write",
                            collection, status).containsEntry("/b/dir/report", "current");
                }
            } finally {
                gateway.close();
            }
        }
    }

    /**
     * A client may list headers in Connection for the next hop to drop; listing Depth would have
     * the gateway drop the very Depth: 0 it set, and Apache would take the DELETE as Depth: infinity.
     */
    @ParameterizedTest(name = "{0} behind apache mod_dav, Connection: {1}")
    @CsvSource(delimiter = '|', value = {"webdav|Depth", "http|Depth", "webdav|keep-alive, depth"})
    void aStaleDeleteWhoseConnectionHeaderNamesDepthIsRefusedAndRemovesNothing(String kindName, String connection) throws Exception {
        StoreKind kind = kindName.equals("webdav") ? StoreKind.WEBDAV : StoreKind.HTTP;
        try (ApacheWebDav apache = ApacheWebDav.start(false)) {
            Gateway gateway = gateway(apache.port(), kind);
            try {
                assertThat(direct(apache.port(), "MKCOL", "/b/")).isEqualTo(201);
                assertThat(direct(apache.port(), "MKCOL", "/b/dir/")).isEqualTo(201);
                assertThat(send(gateway.port(), "PUT", "/b/dir/report", 10)).isBetween(200, 299);

                int status = send(gateway.port(), "DELETE", "/b/dir", 3, connection);

                assertThat(status).isEqualTo(400);
                assertThat(apache.objects()).containsEntry("/b/dir/report", "current");
            } finally {
                gateway.close();
            }
        }
    }

    /**
     * Servers built on Go's golang.org/x/net/webdav (rclone's here, Caddy's alike) ignore Depth: a
     * DELETE of a collection's name removes its whole tree. The gateway asks the store first
     * (PROPFIND, Depth: 0) and refuses a DELETE of a collection, whatever its token; objects are
     * deleted as before, and a name the store does not have still reaches it.
     */
    @ParameterizedTest(name = "{0} behind rclone serve webdav")
    @CsvSource({"webdav", "http"})
    void behindAStoreThatIgnoresDepthADeleteOfACollectionIsRefusedAndRemovesNothing(String kindName) throws Exception {
        StoreKind kind = kindName.equals("webdav") ? StoreKind.WEBDAV : StoreKind.HTTP;
        try (RcloneWebDav rclone = RcloneWebDav.start()) {
            Gateway gateway = gateway(rclone.port(), kind);
            try {
                assertThat(direct(rclone.port(), "MKCOL", "/b/")).isEqualTo(201);
                assertThat(direct(rclone.port(), "MKCOL", "/b/dir/")).isEqualTo(201);
                assertThat(send(gateway.port(), "PUT", "/b/dir/report", 10)).isBetween(200, 299);
                assertThat(send(gateway.port(), "PUT", "/b/dir/old", 10)).isBetween(200, 299);
                assertThat(send(gateway.port(), "DELETE", "/b/dir/old", 10)).as("an object's DELETE").isBetween(200, 299);
                assertThat(rclone.objects()).doesNotContainKey("/b/dir/old").containsEntry("/b/dir/report", "current");

                assertThat(send(gateway.port(), "DELETE", "/b/dir", 3)).as("a stale DELETE of the collection").isEqualTo(400);
                assertThat(send(gateway.port(), "DELETE", "/b/dir", 20)).as("a fresh DELETE of the collection").isEqualTo(400);

                assertThat(rclone.objects()).containsEntry("/b/dir/report", "current");
                assertThat(send(gateway.port(), "DELETE", "/b/none", 3)).as("a name the store does not have").isEqualTo(404);
            } finally {
                gateway.close();
            }
        }
    }

    /**
     * What the store answers the gateway's PROPFIND decides whether the DELETE reaches it: only an
     * object, nothing there (404) or no PROPFIND served (nginx's 405, 501) lets it go on to its
     * fence and the store; a collection, or an answer that does not say (a redirect, the client's
     * credentials refused, 5xx, a 207 without a resource type, a closed connection), refuses it
     * with nothing sent. The PROPFIND carries the DELETE's credentials and cookies.
     */
    @ParameterizedTest(name = "PROPFIND answered {0}")
    @CsvSource(delimiter = '|', value = {
            "207 collection|400|false", "207 collection after a 100|400|false", "500|502|false", "closed|502|false",
            "403|502|false", "301|502|false", "207 without a resource type|502|false",
            "207 object|204|true", "405|204|true", "404|204|true", "501|204|true"})
    void aDeleteReachesTheStoreOnlyWhenItSaysThePathIsNoCollection(String answer, int expected, boolean deleteSent) throws Exception {
        String multistatus = "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/b/dir</D:href>"
                + "<D:propstat><D:prop><D:resourcetype>%s</D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status>"
                + "</D:propstat></D:response></D:multistatus>";
        String collection = multistatus.formatted("<D:collection/>");
        String object = multistatus.formatted("");
        String untyped = object.replace("<D:resourcetype></D:resourcetype>", "<D:getetag>\"1\"</D:getetag>");
        List<String> propfinds = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (LiteralStore store = new LiteralStore(head -> {
            if (!head.startsWith("PROPFIND ")) {
                return LiteralStore.Reply.of("HTTP/1.1 204 No Content\r\n\r\n");
            }
            propfinds.add(head);
            return switch (answer) {
                case "207 collection" -> LiteralStore.Reply.of("HTTP/1.1 207 Multi-Status\r\nContent-Length: "
                        + collection.length() + "\r\n\r\n" + collection);
                case "207 collection after a 100" -> LiteralStore.Reply.of("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 207 Multi-Status"
                        + "\r\nTransfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(collection.length()) + "\r\n" + collection
                        + "\r\n0\r\n\r\n");
                case "207 object" -> LiteralStore.Reply.of("HTTP/1.1 207 Multi-Status\r\nContent-Length: " + object.length()
                        + "\r\n\r\n" + object);
                case "207 without a resource type" -> LiteralStore.Reply.of("HTTP/1.1 207 Multi-Status\r\nContent-Length: "
                        + untyped.length() + "\r\n\r\n" + untyped);
                case "closed" -> new LiteralStore.Reply("", true, true);
                default -> LiteralStore.Reply.of("HTTP/1.1 " + answer + " Whatever\r\nContent-Length: 0\r\n\r\n");
            };
        })) {
            Gateway gateway = gateway(store.port(), StoreKind.WEBDAV);
            try {
                int status;
                try (RawHttp raw = RawHttp.connect(gateway.port())) {
                    status = RawHttp.status(raw.send("DELETE /b/dir HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 3\r\n"
                            + "Authorization: Basic dXNlcjpwdw==\r\nCookie: session=s1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                            .readResponse());
                }
                assertThat(status).isEqualTo(expected);
                assertThat(propfinds).hasSize(1);
                assertThat(propfinds.get(0)).contains("Authorization: Basic dXNlcjpwdw==\r\n", "Cookie: session=s1\r\n", "Depth: 0\r\n");
                List<String> asked = store.received().stream().map(LiteralStore.Received::requestLine).toList();
                assertThat(asked.get(0)).startsWith("PROPFIND /b/dir ");
                assertThat(asked.stream().anyMatch(line -> line.startsWith("DELETE "))).as("DELETE sent, after %s", asked)
                        .isEqualTo(deleteSent);
            } finally {
                gateway.close();
            }
        }
    }

    /**
     * The PROPFIND goes on a kept-alive connection to the store, as the DELETE after it does: where
     * its answer ended by its own framing on a connection the store keeps, the three DELETEs of one
     * client and their three PROPFINDs all go on one store connection, with no connection opened
     * (nor, over TLS, a handshake) per DELETE. Where the answer does not leave the connection
     * reusable (the store says it closes it, an HTTP/1.0 answer, one that ends with the
     * connection), the DELETE goes on another connection, and each DELETE still reaches the store.
     */
    @ParameterizedTest(name = "PROPFIND answered {0}")
    @CsvSource(delimiter = '|', value = {
            "207 object|true", "207 object, chunked|true", "405|true", "404|true",
            "405 with Connection: close|false", "405 as HTTP/1.0|false", "207 object, ended by the close|false"})
    void aDeletesQuestionGoesOnTheStoresKeptAliveConnectionWhenItsAnswerLeavesItReusable(String answer, boolean shared) throws Exception {
        String object = "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/b/x</D:href>"
                + "<D:propstat><D:prop><D:resourcetype></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status>"
                + "</D:propstat></D:response></D:multistatus>";
        try (LiteralStore store = new LiteralStore(head -> {
            if (!head.startsWith("PROPFIND ")) {
                return LiteralStore.Reply.of("HTTP/1.1 204 No Content\r\n\r\n");
            }
            return switch (answer) {
                case "207 object" -> LiteralStore.Reply.of("HTTP/1.1 207 Multi-Status\r\nContent-Length: " + object.length()
                        + "\r\n\r\n" + object);
                case "207 object, chunked" -> LiteralStore.Reply.of("HTTP/1.1 207 Multi-Status\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + Integer.toHexString(object.length()) + "\r\n" + object + "\r\n0\r\n\r\n");
                case "405 with Connection: close" -> LiteralStore.Reply.of("HTTP/1.1 405 Not Allowed\r\nConnection: close\r\n"
                        + "Content-Length: 0\r\n\r\n");
                case "405 as HTTP/1.0" -> LiteralStore.Reply.of("HTTP/1.0 405 Not Allowed\r\nContent-Length: 0\r\n\r\n");
                case "207 object, ended by the close" -> new LiteralStore.Reply("HTTP/1.1 207 Multi-Status\r\n\r\n" + object, true, true);
                default -> LiteralStore.Reply.of("HTTP/1.1 " + answer + " Whatever\r\nContent-Length: 0\r\n\r\n");
            };
        })) {
            Gateway gateway = gateway(store.port(), StoreKind.HTTP);
            try (RawHttp raw = RawHttp.connect(gateway.port())) {
                for (int i = 1; i <= 3; i++) {
                    assertThat(RawHttp.status(raw.send("DELETE /b/x" + i + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 3\r\n"
                            + "Content-Length: 0\r\n\r\n").readResponse())).as("DELETE %d", i).isEqualTo(204);
                }
                List<LiteralStore.Received> received = store.received();
                assertThat(received).extracting(LiteralStore.Received::requestLine).hasSize(6);
                for (int i = 0; i < 6; i += 2) {
                    LiteralStore.Received propfind = received.get(i);
                    LiteralStore.Received delete = received.get(i + 1);
                    assertThat(propfind.requestLine()).startsWith("PROPFIND ");
                    assertThat(delete.requestLine()).startsWith("DELETE ");
                    assertThat(delete.connection() == propfind.connection()).as("the DELETE on its PROPFIND's connection, %s", received)
                            .isEqualTo(shared);
                }
                if (shared) {
                    assertThat(received).extracting(LiteralStore.Received::connection).as("one store connection for all six")
                            .containsOnly(received.get(0).connection());
                }
            } finally {
                gateway.close();
            }
        }
    }

    /**
     * A kept-alive connection the store closes as the PROPFIND goes out on it (the store let it go
     * idle as it was taken) is not the store's answer: the PROPFIND, which changes nothing, is
     * sent again once on a new connection, and the DELETE goes on as its answer says.
     */
    @Test
    void aDeletesQuestionLostWithAKeptAliveConnectionIsAskedAgainOnANewOne() throws Exception {
        AtomicInteger propfinds = new AtomicInteger();
        try (LiteralStore store = new LiteralStore(head -> {
            if (!head.startsWith("PROPFIND ")) {
                return LiteralStore.Reply.of("HTTP/1.1 204 No Content\r\n\r\n");
            }
            return propfinds.incrementAndGet() == 2 ? new LiteralStore.Reply("", true, true)
                    : LiteralStore.Reply.of("HTTP/1.1 405 Not Allowed\r\nContent-Length: 0\r\n\r\n");
        })) {
            Gateway gateway = gateway(store.port(), StoreKind.HTTP);
            try (RawHttp raw = RawHttp.connect(gateway.port())) {
                for (int i = 1; i <= 2; i++) {
                    assertThat(RawHttp.status(raw.send("DELETE /b/x" + i + " HTTP/1.1\r\nHost: localhost\r\nFencing-Token: 3\r\n"
                            + "Content-Length: 0\r\n\r\n").readResponse())).as("DELETE %d", i).isEqualTo(204);
                }
                List<LiteralStore.Received> received = store.received();
                assertThat(received).extracting(LiteralStore.Received::requestLine).containsExactly("PROPFIND /b/x1 HTTP/1.1",
                        "DELETE /b/x1 HTTP/1.1", "PROPFIND /b/x2 HTTP/1.1", "PROPFIND /b/x2 HTTP/1.1", "DELETE /b/x2 HTTP/1.1");
                assertThat(received.get(2).connection()).as("the first PROPFIND of /b/x2 on the kept-alive connection")
                        .isEqualTo(received.get(1).connection());
                assertThat(received.get(3).connection()).as("asked again on a new connection").isNotEqualTo(received.get(2).connection());
            } finally {
                gateway.close();
            }
        }
    }

    @ParameterizedTest(name = "{0} behind nginx dav")
    @CsvSource({"webdav", "http"})
    void behindNginxAnObjectIsDeletedAndTheCollectionIsNot(String kindName) throws Exception {
        StoreKind kind = kindName.equals("webdav") ? StoreKind.WEBDAV : StoreKind.HTTP;
        try (NginxWebDav nginx = NginxWebDav.start()) {
            Gateway gateway = gateway(nginx.port(), kind);
            try {
                assertThat(send(gateway.port(), "PUT", "/b/dir/report", 10)).isBetween(200, 299);
                assertThat(send(gateway.port(), "PUT", "/b/dir/old", 10)).isBetween(200, 299);
                assertThat(send(gateway.port(), "DELETE", "/b/dir/old", 10)).as("an object's DELETE, with Depth: 0").isBetween(200, 299);
                assertThat(nginx.objects()).doesNotContainKey("/b/dir/old");
                send(gateway.port(), "DELETE", "/b/dir", 3);
                assertThat(nginx.objects()).containsEntry("/b/dir/report", "current");
            } finally {
                gateway.close();
            }
        }
    }
}
