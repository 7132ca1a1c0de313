package dev.fencegate.testing;

import java.util.Map;

/** A real WebDAV store a test writes through the gateway to, and whose files it reads back. */
public abstract class WebDavStore implements AutoCloseable {

    private final WebDavProcess server;

    WebDavStore(WebDavProcess server) {
        this.server = server;
    }

    public int port() {
        return server.port();
    }

    /** Every file the store holds, by its path under the root ({@code /b/k}), with its content. */
    public Map<String, String> objects() {
        return server.objects();
    }

    /** The file the store keeps the object {@code path} ({@code /b/k}) in. */
    public java.nio.file.Path file(String path) {
        return server.file(path);
    }

    @Override
    public void close() {
        server.close();
    }
}
