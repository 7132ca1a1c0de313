package dev.fencegate.loadtest.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NginxConfigTest {
    private static final Path DIR = Path.of("/tmp/fg/webdav");
    private static final Path LOG = Path.of("/tmp/fg/logs/error.log");

    @Test
    void the_webdav_store_takes_puts_of_any_size_into_its_own_root() {
        String conf = NginxConfig.webdavStore(DIR, LOG, 4567, "1", true);

        assertThat(conf).contains("listen 127.0.0.1:4567;", "root /tmp/fg/webdav/root;",
                "dav_methods PUT DELETE;", "create_full_put_path on;", "client_body_in_file_only off;",
                "client_max_body_size 0;", "log_not_found off;", "worker_processes 1;", "error_log /tmp/fg/logs/error.log warn;",
                "client_body_temp_path /tmp/fg/webdav/client_body_temp;");
        assertThat(conf).startsWith("user root;\n");
        assertThat(braces(conf)).isZero();
    }

    @Test
    void the_reference_proxy_keeps_upstream_connections_alive_and_streams_bodies() {
        Map<Integer, Integer> servers = new LinkedHashMap<>();
        servers.put(8001, 9001);
        servers.put(8002, 9002);

        String conf = NginxConfig.reverseProxy(DIR, LOG, servers, "auto", false);

        assertThat(conf).contains("listen 127.0.0.1:8001;", "proxy_pass http://store_9001;",
                "listen 127.0.0.1:8002;", "server 127.0.0.1:9002;", "keepalive 64;",
                "proxy_http_version 1.1;", "proxy_set_header Connection \"\";", "proxy_request_buffering off;");
        assertThat(conf).doesNotContain("user root;");
        assertThat(braces(conf)).isZero();
    }

    private static long braces(String conf) {
        return conf.chars().filter(c -> c == '{').count() - conf.chars().filter(c -> c == '}').count();
    }
}
