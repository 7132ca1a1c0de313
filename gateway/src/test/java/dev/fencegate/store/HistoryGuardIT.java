package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.AdminMetrics;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.RestartablePostgres;
import dev.fencegate.testing.TestPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A fence database restored from a copy taken before a raise, on a server of its own: the
 * instance that saw the raise confirmed takes no connection to it, and no write passes on the
 * fence that went back.
 */
class HistoryGuardIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final List<Path> folders = new ArrayList<>();
    private EmbeddedPostgres server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
        for (Path folder : folders) {
            delete(folder);
        }
    }

    @Test
    void anInstanceRefusesEveryWriteOnceTheDatabaseWentBackBehindACommitItSawConfirmed() throws Exception {
        Path data = folder("data");
        Path copy = folder("copy");
        int port = freePort();
        server = start(data, port);
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        String schema = TestPostgres.newSchema("history");
        DatabaseConfig database = new DatabaseConfig(url, schema, "postgres", "", 2, Duration.ofSeconds(2));
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), database, Duration.ofSeconds(10))) {
            // The same history, restarted: no false alarm. Another instance raises j: this one remembers no token of j's.
            copyThenRaise(gateway, data, copy, port, schema, "/history/k", List.of("/history/j"));
            assertThat(AdminMetrics.value(gateway.gateway.adminPort(), "fencegate_fence_history_went_back")).isZero();

            // Restored: the fence reads 5 again.
            server.close();
            delete(data);
            copy(copy, data);
            server = start(data, port);
            assertThat(fence(url, schema, "/history/k")).as("the restored fence").isEqualTo(5);

            List<Integer> answers = new ArrayList<>();
            long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
            for (int i = 0; System.nanoTime() < end; i++) {
                answers.add(gateway.put("/history/j", 7, "stale at 7, #" + i).statusCode());
                answers.add(gateway.put("/history/new-" + i, 1, "a new object").statusCode());
                Thread.sleep(20);
            }
            assertThat(answers).as("answers while the database is behind").containsOnly(503);
            assertThat(gateway.store.applied()).extracting(AppliedWrite::fencingToken).containsOnly("5", "10");
            assertThat(gateway.put("/history/k", 7, "stale at 7").statusCode()).isIn(412, 503);
            assertThat(AdminMetrics.value(gateway.gateway.adminPort(), "fencegate_fence_history_went_back")).isEqualTo(1);
            HttpResponse<String> refused = gateway.put("/history/k", 11, "above every fence");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.body()).contains("the fence database went back");
            HttpResponse<String> ready = HTTP.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + gateway.gateway.adminPort() + "/readyz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("went back");
            assertThat(AdminMetrics.ready(gateway.gateway.adminPort())).isFalse();
            HttpResponse<String> raise = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + gateway.gateway.adminPort() + "/fences/%2Fhistory%2Fj?token=20")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(raise.statusCode()).as("an admin raise").isEqualTo(503);
            assertThat(raise.body()).contains("the fence database went back");
            assertThat(fence(url, schema, "/history/k")).as("the fence after it all").isEqualTo(5);
        }
    }

    /**
     * A point-in-time restore comes up as a standby, in recovery, and is promoted once it reached
     * its point, here at once, under writes that waited through the outage: no connection is taken
     * while it has no WAL position to show, so none outlives the promotion unchecked, and no write
     * passes on the fences it lost.
     */
    @Test
    void aCopyRestoredAsAStandbyAndPromotedUnderWritesAdmitsNothing() throws Exception {
        Path data = folder("data");
        Path copy = folder("copy");
        int port = freePort();
        server = start(data, port);
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        String schema = TestPostgres.newSchema("history_standby");
        DatabaseConfig database = new DatabaseConfig(url, schema, "postgres", "", 2, Duration.ofSeconds(2));
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), database, Duration.ofSeconds(10))) {
            List<String> others = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                others.add("/standby/j" + i);
            }
            copyThenRaise(gateway, data, copy, port, schema, "/standby/k", others);

            server.close();
            AtomicBoolean stop = new AtomicBoolean();
            List<Integer> answers = new CopyOnWriteArrayList<>();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int writer = w;
                Thread thread = new Thread(() -> {
                    for (int n = 0; !stop.get(); n++) {
                        answers.add(gateway.put("/standby/j" + (writer * 5 + n % 5), 7, "stale at 7").statusCode());
                    }
                }, "stale-writer-" + w);
                thread.start();
                writers.add(thread);
            }
            delete(data);
            copy(copy, data);
            Files.createFile(data.resolve("standby.signal"));
            server = start(data, port);
            int beforePromotion = answers.size();
            try (Connection connection = DriverManager.getConnection(url, "postgres", "");
                 Statement statement = connection.createStatement()) {
                statement.execute("SELECT pg_promote()");
            }
            Thread.sleep(3_000);
            stop.set(true);
            for (Thread writer : writers) {
                writer.join();
            }

            assertThat(beforePromotion).as("writes while the database was away or in recovery").isPositive();
            assertThat(answers.size()).as("writes in all").isGreaterThan(beforePromotion);
            assertThat(answers).as("answers, in recovery and after the promotion").containsOnly(503);
            assertThat(gateway.store.applied()).extracting(AppliedWrite::fencingToken).containsOnly("5", "10");
            assertThat(AdminMetrics.value(gateway.gateway.adminPort(), "fencegate_fence_history_went_back")).isEqualTo(1);
            // Its connections to the promoted copy, made while it was in recovery, are closed, the listener's too.
            Awaitility.await("the gateway's sessions on the copy gone").atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(200)).until(() -> sessions(url, schema) == 0);
        }
    }

    /**
     * A server in recovery has no WAL position to hold against the confirmed one: a connection made
     * to it would be checked against nothing, and could outlive its promotion. None is made.
     */
    @Test
    void aServerInRecoveryGetsNoConnection() throws Exception {
        Path data = folder("data");
        int port = freePort();
        server = start(data, port);
        server.close();
        Files.createFile(data.resolve("standby.signal"));
        server = start(data, port);
        PGSimpleDataSource standby = new PGSimpleDataSource();
        standby.setURL("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
        standby.setUser("postgres");
        CheckedConnections connections = new CheckedConnections(standby, new HistoryGuard(UUID.randomUUID(), false, false),
                new DurabilityGuard(false, false));

        assertThatThrownBy(connections::getConnection).isInstanceOf(SQLException.class)
                .hasMessageStartingWith("the fence database is in recovery");

        try (Connection connection = standby.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_promote()");
        }
        try (Connection promoted = connections.getConnection()) {
            assertThat(promoted.isValid(1)).isTrue();
        }
    }

    private static long sessions(String url, String schema) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "postgres", "");
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'fencegate/"
                     + schema + "'")) {
            row.next();
            return row.getLong(1);
        }
    }

    /**
     * {@code written} at 5 through the gateway, then a copy of the data folder taken with the server
     * stopped (no fence of {@code others} in it); the same history started again, {@code written}
     * raised to 10 through the gateway and {@code others} to 10 as another instance would, and this
     * instance's confirmed position past all of it.
     */
    private void copyThenRaise(GatewayHarness gateway, Path data, Path copy, int port, String schema, String written,
                               List<String> others) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        assertThat(gateway.put(written, 5, "at 5").statusCode()).isEqualTo(201);
        server.close();
        copy(data, copy);
        server = start(data, port);
        Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> gateway.put(written, 10, "at 10").statusCode() == 204);
        for (String other : others) {
            raise(url, schema, other, 10);
        }
        long afterRaise = position(url);
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> AdminMetrics.value(gateway.gateway.adminPort(), "fencegate_fence_history_confirmed_bytes") >= afterRaise);
    }

    private static EmbeddedPostgres start(Path data, int port) throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(false)
                .setPort(port)
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on")
                .start();
    }

    private static long position(String url) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "postgres", "");
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT pg_current_wal_lsn()::text")) {
            row.next();
            return HistoryGuard.parse(row.getString(1));
        }
    }

    private static void raise(String url, String schema, String resource, long token) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "postgres", "");
             Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO " + schema + ".fence (resource, token) VALUES ('" + resource + "', " + token + ")");
        }
    }

    private static long fence(String url, String schema, String resource) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "postgres", "");
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT token FROM " + schema + ".fence WHERE resource = '" + resource + "'")) {
            assertThat(row.next()).as("a fence row for " + resource).isTrue();
            return row.getLong(1);
        }
    }

    private Path folder(String name) throws IOException {
        Path folder = Files.createTempDirectory("fencegate-history-" + name + "-");
        folders.add(folder);
        return folder;
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
        // PostgreSQL starts only on a data directory no one else may read.
        Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwx------"));
    }

    private static void delete(Path folder) throws IOException {
        RestartablePostgres.delete(folder);
    }

    private static int freePort() throws IOException {
        return RestartablePostgres.freePort();
    }
}
