package dev.fencegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real nginx WebDAV store on loopback, serving a temp directory, with every dav method on so
 * that whatever the gateway lets through, the store would carry out. Where nginx is not
 * installed, tests using it are skipped, unless FENCEGATE_REQUIRE_NGINX is set (CI sets it):
 * then its absence fails them.
 */
public final class NginxWebDav implements AutoCloseable {

    public static final String REQUIRE_VARIABLE = "FENCEGATE_REQUIRE_NGINX";
    private static final Path BINARY = Path.of("/usr/sbin/nginx");

    private final Process process;
    private final Path directory;
    private final int port;

    private NginxWebDav(Process process, Path directory, int port) {
        this.process = process;
        this.directory = directory;
        this.port = port;
    }

    public static NginxWebDav start() {
        if (!Files.isExecutable(BINARY)) {
            if (System.getenv(REQUIRE_VARIABLE) != null) {
                throw new IllegalStateException(BINARY + " is missing and " + REQUIRE_VARIABLE + " is set");
            }
            Assumptions.abort(BINARY + " is not installed (set " + REQUIRE_VARIABLE + " to make that a failure)");
        }
        try {
            Path directory = Files.createTempDirectory("fencegate-nginx");
            Files.createDirectories(directory.resolve("root"));
            int port = freePort();
            Path config = directory.resolve("nginx.conf");
            Files.writeString(config, config(directory, port));
            Process process = new ProcessBuilder(BINARY.toString(), "-c", config.toString(), "-p", directory.toString(),
                    "-g", "daemon off;")
                    .redirectErrorStream(true).redirectOutput(directory.resolve("stdout.log").toFile()).start();
            NginxWebDav nginx = new NginxWebDav(process, directory, port);
            nginx.awaitListening();
            return nginx;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return port;
    }

    /** Every file the store holds, by its path under the root ({@code /b/k}), with its content. */
    public Map<String, String> objects() {
        Path root = directory.resolve("root");
        Map<String, String> objects = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                objects.put("/" + root.relativize(file).toString().replace('\\', '/'), new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return objects;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("nginx exited with " + process.exitValue() + ": "
                        + Files.readString(directory.resolve("stdout.log")) + Files.readString(directory.resolve("error.log")));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        close();
        throw new IllegalStateException("nginx did not listen on " + port + " within 20 s");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
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
                }
                """.formatted(dir, port);
    }
}
