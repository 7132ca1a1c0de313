package dev.fencegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A real nginx WebDAV store on loopback, serving a temp directory, with every dav method on so
 * that whatever the gateway lets through, the store would carry out; under a second server name,
 * {@link #BUCKET_B_HOST}, it serves the folder {@code /b} as its root. Where nginx is not
 * installed, tests using it are skipped, unless FENCEGATE_REQUIRE_NGINX is set (CI sets it):
 * then its absence fails them.
 */
public final class NginxWebDav extends WebDavStore {

    public static final String REQUIRE_VARIABLE = "FENCEGATE_REQUIRE_NGINX";
    private static final Path BINARY = Path.of("/usr/sbin/nginx");
    /** A second server name of the store, whose root is the folder of bucket {@code b}: {@code /k} there is {@code /b/k}. */
    public static final String BUCKET_B_HOST = "b.tenant.example";

    /** A folder of its own for request bodies, on another file system than the root, or none. */
    private final Optional<Path> bodies;

    private NginxWebDav(WebDavProcess server, Optional<Path> bodies) {
        super(server);
        this.bodies = bodies;
    }

    public static NginxWebDav start() {
        return start(Optional.empty(), 1);
    }

    /**
     * nginx with its request bodies kept on another file system than its root (tmpfs under
     * {@code /dev/shm}, the root on the temp directory's disk) and two workers, as many hosts run
     * it: a PUT's body cannot be renamed onto its object, so nginx copies it to
     * {@code <object>.<10 digits>} beside the object and renames that, while the other worker serves.
     */
    public static NginxWebDav startCopyingBodies() {
        WebDavProcess.requireInstalled(BINARY, REQUIRE_VARIABLE);
        try {
            return start(Optional.of(Files.createTempDirectory(Path.of("/dev/shm"), "fencegate-nginx-bodies")), 2);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static NginxWebDav start(Optional<Path> bodies, int workers) {
        WebDavProcess.requireInstalled(BINARY, REQUIRE_VARIABLE);
        try {
            Path directory = WebDavProcess.directory("fencegate-nginx");
            int port = WebDavProcess.freePort();
            Path config = directory.resolve("nginx.conf");
            Files.writeString(config, config(directory, port, bodies.orElse(directory.resolve("client_body_temp")), workers));
            return new NginxWebDav(WebDavProcess.start("nginx", List.of(BINARY.toString(), "-c", config.toString(), "-p",
                    directory.toString(), "-g", "daemon off;"), directory, port, List.of("stdout.log", "error.log")), bodies);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        super.close();
        bodies.ifPresent(WebDavProcess::delete);
    }

    // Run as root, the workers would be "nobody" and could not write into a root-owned temp dir.
    private static String config(Path dir, int port, Path bodies, int workers) {
        boolean root = "root".equals(System.getProperty("user.name"));
        return (root ? "user root;\n" : "") + """
                worker_processes %5$d;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;
                events {
                    worker_connections 256;
                }
                http {
                    access_log off;
                    client_body_temp_path %4$s;
                    proxy_temp_path %1$s/proxy_temp;
                    fastcgi_temp_path %1$s/fastcgi_temp;
                    uwsgi_temp_path %1$s/uwsgi_temp;
                    scgi_temp_path %1$s/scgi_temp;
                    server {
                        listen 127.0.0.1:%2$d;
                        root %1$s/root;
                        location / {
                            dav_methods PUT DELETE MKCOL COPY MOVE;
                            create_full_put_path on;
                            client_max_body_size 0;
                            log_not_found off;
                        }
                    }
                    # A second name for part of the same folder, as a tenant's host serving its own bucket.
                    server {
                        listen 127.0.0.1:%2$d;
                        server_name %3$s;
                        root %1$s/root/b;
                        location / {
                            dav_methods PUT DELETE MKCOL COPY MOVE;
                            create_full_put_path on;
                            client_max_body_size 0;
                            log_not_found off;
                        }
                    }
                }
                """.formatted(dir, port, BUCKET_B_HOST, bodies, workers);
    }
}
