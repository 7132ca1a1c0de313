package dev.fencegate.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of a test's own, on a data folder and a port that outlive it: stopped, it
 * can be started again on the same data with other settings, as an operator's restart would.
 */
public final class RestartablePostgres implements AutoCloseable {

    private final Path data;
    private final int port;
    private EmbeddedPostgres server;

    private RestartablePostgres(Path data, int port) {
        this.data = data;
        this.port = port;
    }

    /** A new data folder and a free port; nothing runs until {@link #start}. */
    public static RestartablePostgres create() throws IOException {
        return new RestartablePostgres(Files.createTempDirectory("fencegate-postgres-"), freePort());
    }

    /** Starts the server on its data with {@code settings} (durable ones unless overridden). */
    public void start(Map<String, String> settings) throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(false)
                .setPort(port)
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on");
        settings.forEach(builder::setServerConfig);
        server = builder.start();
    }

    public void stop() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    @Override
    public void close() throws IOException {
        stop();
        delete(data);
    }

    /** Deletes {@code folder} and everything in it, if it is there. */
    public static void delete(Path folder) throws IOException {
        if (!Files.exists(folder)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
