package dev.fencegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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

    private NginxWebDav(WebDavProcess server) {
        super(server);
    }

    public static NginxWebDav start() {
        WebDavProcess.requireInstalled(BINARY, REQUIRE_VARIABLE);
        try {
            Path directory = WebDavProcess.directory("fencegate-nginx");
            int port = WebDavProcess.freePort();
            Path config = directory.resolve("nginx.conf");
            Files.writeString(config, config(directory, port));
            return new NginxWebDav(WebDavProcess.start("nginx", List.of(BINARY.toString(), "-c", config.toString(), "-p",
                    directory.toString(), "-g", "daemon off;"), directory, port, List.of("stdout.log", "error.log")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // Run as root, the workers would be "nobody" and could not write into a root-owned temp dir.
    private static String config(Path dir, int port) {
        boolean root = "root".equals(System.getProperty("user.name"));
        return (root ? "user root;\n" : "") + """
                worker_processes 1;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;
                events {
                    worker_connections 256;
                }
                http {
                    access_log off;
                    client_body_temp_path %1$s/client_body_temp;
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
                """.formatted(dir, port, BUCKET_B_HOST);
    }
}
