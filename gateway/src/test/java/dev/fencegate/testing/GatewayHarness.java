package dev.fencegate.testing;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.HostPort;
import dev.fencegate.config.Limits;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A real gateway on loopback, in front of a real in-memory HTTP store, fenced in a schema of its own. */
public final class GatewayHarness implements AutoCloseable {

    public final MemoryObjectStore store;
    public final Gateway gateway;
    public final String schema;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private GatewayHarness(MemoryObjectStore store, Gateway gateway, String schema) {
        this.store = store;
        this.gateway = gateway;
        this.schema = schema;
    }

    public static GatewayHarness start(String owner) {
        return start(MemoryObjectStore.Options.loopback(), TestPostgres.config(TestPostgres.newSchema(owner)), Duration.ofSeconds(10));
    }

    public static GatewayHarness start(MemoryObjectStore.Options storeOptions, DatabaseConfig database, Duration upstreamTimeout) {
        MemoryObjectStore store = MemoryObjectStore.start(storeOptions);
        try {
            Gateway gateway = Gateway.start(config(URI.create("http://127.0.0.1:" + store.port()), database, upstreamTimeout));
            return new GatewayHarness(store, gateway, database.schema());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            store.close();
            throw new IllegalStateException(e);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    public static GatewayConfig config(URI upstream, DatabaseConfig database, Duration upstreamTimeout) {
        return config(upstream, database, upstreamTimeout, Duration.ofSeconds(5), SafetyConfig.defaults());
    }

    public static GatewayConfig config(URI upstream, DatabaseConfig database, Duration upstreamTimeout, Duration clientIdle,
                                       SafetyConfig safety) {
        return new GatewayConfig(new HostPort("127.0.0.1", 0), new HostPort("127.0.0.1", 0), upstream, database,
                Duration.ofSeconds(2), upstreamTimeout, clientIdle, Limits.defaults(), safety, 2);
    }

    /** A gateway with its own settings in front of this harness's kind of store. */
    public static GatewayHarness start(MemoryObjectStore.Options storeOptions, java.util.function.Function<URI, GatewayConfig> config) {
        MemoryObjectStore store = MemoryObjectStore.start(storeOptions);
        try {
            GatewayConfig settings = config.apply(URI.create("http://127.0.0.1:" + store.port()));
            return new GatewayHarness(store, Gateway.start(settings), settings.database().schema());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            store.close();
            throw new IllegalStateException(e);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    public int port() {
        return gateway.port();
    }

    public URI uri(String target) {
        return URI.create("http://127.0.0.1:" + gateway.port() + target);
    }

    public HttpResponse<String> put(String path, long token, String body) {
        return send(HttpRequest.newBuilder(uri(path)).header("Fencing-Token", Long.toString(token))
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    public HttpResponse<String> put(String path, long token, String holder, String body) {
        return send(HttpRequest.newBuilder(uri(path)).header("Fencing-Token", Long.toString(token))
                .header("Fencing-Holder", holder).PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    public HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The fence recorded for {@code resource}, read straight from the table; -1 when there is none. */
    public long fenceRow(String resource) {
        String token = fenceColumn(resource, "token::text");
        return token == null ? -1 : Long.parseLong(token);
    }

    /** The holder named on {@code resource}'s fence, read straight from the table; null when none is named or there is no fence. */
    public String fenceHolder(String resource) {
        return fenceColumn(resource, "holder");
    }

    private String fenceColumn(String resource, String column) {
        var server = TestPostgres.server();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             PreparedStatement select = connection.prepareStatement("SELECT " + column + " FROM " + schema + ".fence WHERE resource = ?")) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public RawHttp raw() throws IOException {
        return RawHttp.connect(gateway.port());
    }

    /**
     * A connection whose reads take a whole 64 KiB write at once. Netty sizes each read of a
     * connection by how full the last ones were, starting at 2 KiB: one large body sent first
     * widens them, so that what a test writes next arrives in a single read.
     */
    public RawHttp rawWithWideReads() throws IOException {
        RawHttp raw = raw();
        String response = raw.send("PUT /wide-reads/" + java.util.UUID.randomUUID() + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\n"
                + "Content-Length: " + (1024 * 1024) + "\r\n\r\n" + "w".repeat(1024 * 1024)).readResponse();
        if (RawHttp.status(response) != 201) {
            raw.close();
            throw new IllegalStateException("the write that widens reads was not applied: " + response);
        }
        return raw;
    }

    @Override
    public void close() {
        gateway.close();
        store.close();
    }
}
