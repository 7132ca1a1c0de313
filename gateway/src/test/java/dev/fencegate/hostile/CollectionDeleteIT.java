package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.StoreKind;
import dev.fencegate.testing.ApacheWebDav;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NginxWebDav;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A DELETE naming a collection without its trailing '/' is fenced as one resource, {@code /b/dir};
 * a WebDAV store that serves the collection at that name too (Apache mod_dav without
 * DirectorySlash) would delete every object under it, each fenced on its own. The gateway forwards
 * DELETEs with {@code Depth: 0}, which such a store refuses for a collection, so a stale writer
 * deletes nothing fenced above it; nginx refuses the name without a slash itself.
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
