package dev.fencegate.loadtest.compare;

import java.nio.file.Path;
import java.util.Map;

/**
 * nginx configurations the runner writes into a temp dir: a WebDAV store on disk, and a plain
 * reverse proxy as the reference against which the gateway's overhead is judged.
 */
final class NginxConfig {

    private NginxConfig() {
    }

    static String webdavStore(Path dir, Path errorLog, int port, String workers, boolean runAsRoot) {
        return common(dir, errorLog, workers, runAsRoot) + """
                    server {
                        listen 127.0.0.1:%d;
                        root %s;
                        location / {
                            dav_methods PUT DELETE;
                            create_full_put_path on;
                            client_body_in_file_only off;
                            client_max_body_size 0;
                            # A read of an object never written is a 404 for the client, not a line in the error log.
                            log_not_found off;
                        }
                    }
                }
                """.formatted(port, dir.resolve("root"));
    }

    /** One server per entry: listen port to upstream port. */
    static String reverseProxy(Path dir, Path errorLog, Map<Integer, Integer> listenToUpstream,
                               String workers, boolean runAsRoot) {
        StringBuilder servers = new StringBuilder();
        listenToUpstream.forEach((listen, upstream) -> servers.append("""
                    upstream store_%1$d {
                        server 127.0.0.1:%1$d;
                        keepalive 64;
                        keepalive_requests 1000000;
                    }
                    server {
                        listen 127.0.0.1:%2$d;
                        location / {
                            proxy_pass http://store_%1$d;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                            proxy_request_buffering off;
                            client_max_body_size 0;
                        }
                    }
                """.formatted(upstream, listen)));
        return common(dir, errorLog, workers, runAsRoot) + servers + "}\n";
    }

    // nobody (nginx's default worker user) could not write into a root-owned temp dir.
    private static String common(Path dir, Path errorLog, String workers, boolean runAsRoot) {
        return (runAsRoot ? "user root;\n" : "") + """
                worker_processes %1$s;
                pid %2$s/nginx.pid;
                error_log %3$s warn;
                events {
                    worker_connections 4096;
                }
                http {
                    access_log off;
                    default_type application/octet-stream;
                    client_body_temp_path %2$s/client_body_temp;
                    proxy_temp_path %2$s/proxy_temp;
                    fastcgi_temp_path %2$s/fastcgi_temp;
                    uwsgi_temp_path %2$s/uwsgi_temp;
                    scgi_temp_path %2$s/scgi_temp;
                    # nginx closes a client connection after 1000 requests by default; keep-alive means keep.
                    keepalive_requests 1000000;
                """.formatted(workers, dir, errorLog);
    }
}
