package dev.fencegate.hostile;

import dev.fencegate.Gateway;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.StoreKind;
import dev.fencegate.s3.S3Store;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NginxWebDav;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** A real store, a real gateway in front of it configured for that store's kind, and a look at everything the store holds. */
final class IdentityRig implements AutoCloseable {

    static final String BUCKET = "ident";

    final StoreKind kind;
    private final Gateway gateway;
    private final String schema;
    private final int storePort;
    private final Supplier<Map<String, String>> objects;
    private final AutoCloseable store;

    private IdentityRig(StoreKind kind, Gateway gateway, String schema, int storePort, Supplier<Map<String, String>> objects,
                        AutoCloseable store) {
        this.kind = kind;
        this.gateway = gateway;
        this.schema = schema;
        this.storePort = storePort;
        this.objects = objects;
        this.store = store;
    }

    /** nginx WebDAV behind a gateway with --store-kind webdav, or http: a store the gateway knows nothing more of. */
    static IdentityRig nginx(StoreKind kind) {
        NginxWebDav nginx = NginxWebDav.start();
        return start(kind, nginx.port(), nginx::objects, nginx);
    }

    /** S3Proxy, path-style only, behind --store-kind s3-path; or with virtual hosting under localhost, behind s3-virtual-host. */
    static IdentityRig s3(boolean virtualHosting) {
        S3Store s3 = S3Store.anonymous(virtualHosting ? "localhost" : null);
        s3.createBucket(BUCKET);
        return start(virtualHosting ? StoreKind.S3_VIRTUAL_HOST : StoreKind.S3_PATH, s3.port(), () -> files(s3.directory()), s3);
    }

    private static IdentityRig start(StoreKind kind, int storePort, Supplier<Map<String, String>> objects, AutoCloseable store) {
        String schema = TestPostgres.newSchema("identity_" + kind.value());
        GatewayConfig base = GatewayHarness.config(URI.create("http://127.0.0.1:" + storePort), TestPostgres.config(schema),
                Duration.ofSeconds(10));
        GatewayConfig config = new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(),
                base.limits().withStoreKind(kind, "localhost"), base.safety(), base.ioThreads());
        try {
            return new IdentityRig(kind, Gateway.start(config), schema, storePort, objects, store);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Every object the store holds, by its file path, with its content. */
    Map<String, String> objects() {
        return objects.get();
    }

    /** Sends one request through the gateway; {@code extraHeaders} each end in CRLF. Answers the status. */
    int send(String method, String target, String host, long token, String body, String extraHeaders) {
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            return RawHttp.status(raw.send(method + " " + target + " HTTP/1.1\r\nHost: " + host + ":" + storePort + "\r\n"
                    + "Fencing-Token: " + token + "\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
                    + "\r\n" + extraHeaders + "Connection: close\r\n\r\n" + body).readResponse());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + target + " Host " + host, e);
        }
    }

    /** The token recorded for {@code resource}, straight from the table; -1 when there is none. */
    long fenceRow(String resource) {
        var server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             PreparedStatement select = connection.prepareStatement("SELECT token FROM " + schema + ".fence WHERE resource = ?")) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : -1;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws Exception {
        gateway.close();
        store.close();
    }

    private static Map<String, String> files(Path root) {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path file : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                files.put("/" + root.relativize(file), new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }
}
