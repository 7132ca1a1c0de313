package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.LiteralStore;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every line of the write contract, on the wire, against a real PostgreSQL and a real HTTP store. */
@ExtendWith(NoNettyLeaks.class)
class WriteContractIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static GatewayHarness gateway;
    private String path;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(WriteContractIT.class.getSimpleName());
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @BeforeEach
    void freshResource() {
        path = "/bucket/" + UUID.randomUUID();
    }

    @Test
    void freshWriteLandsAndEqualOrHigherTokensAreAdmitted() {
        assertThat(gateway.put(path, 5, "first").statusCode()).isEqualTo(201);
        assertThat(gateway.put(path, 5, "again").statusCode()).isEqualTo(204);
        assertThat(gateway.put(path, 6, "newer").statusCode()).isEqualTo(204);
        assertThat(gateway.store.appliedTo(path)).extracting(w -> w.fencingToken()).containsExactly("5", "5", "6");
        assertThat(fenceRow(path)).isEqualTo(6);
    }

    @Test
    void staleWriteIsRefusedWith412AndNeverReachesTheStore() throws Exception {
        gateway.put(path, 9, "current");
        int before = gateway.store.requestCount();

        HttpResponse<String> stale = gateway.put(path, 8, "late");

        assertThat(stale.statusCode()).isEqualTo(412);
        assertThat(stale.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = JSON.readTree(stale.body());
        assertThat(problem.get("type").asText()).endsWith("stale-token");
        assertThat(problem.get("resource").asText()).isEqualTo(path);
        assertThat(problem.get("token").asLong()).isEqualTo(8);
        assertThat(problem.get("currentToken").asLong()).isEqualTo(9);
        assertThat(gateway.store.requestCount()).isEqualTo(before);
        assertThat(new String(gateway.store.object(path).orElseThrow())).isEqualTo("current");
    }

    @Test
    void writeWithoutTokenGets428AndNeverReachesTheStore() throws Exception {
        int before = gateway.store.requestCount();
        HttpResponse<String> response = gateway.send(HttpRequest.newBuilder(gateway.uri(path))
                .PUT(HttpRequest.BodyPublishers.ofString("x")).build());
        assertThat(response.statusCode()).isEqualTo(428);
        assertThat(JSON.readTree(response.body()).get("type").asText()).endsWith("missing-token");
        assertThat(gateway.store.requestCount()).isEqualTo(before);
    }

    @Test
    void malformedTokenGets400AndNeverReachesTheStore() throws Exception {
        int before = gateway.store.requestCount();
        for (String token : new String[] {"0", "+5", "05", "5x", "9223372036854775808"}) {
            HttpResponse<String> response = gateway.send(HttpRequest.newBuilder(gateway.uri(path))
                    .header("Fencing-Token", token).PUT(HttpRequest.BodyPublishers.ofString("x")).build());
            assertThat(response.statusCode()).as(token).isEqualTo(400);
            assertThat(JSON.readTree(response.body()).get("type").asText()).endsWith("malformed-token");
        }
        assertThat(gateway.store.requestCount()).isEqualTo(before);
    }

    @Test
    void everyWriteMethodIsFencedAndReadsPassThroughWithoutAToken() {
        gateway.put(path, 3, "v");
        // Under this S3 kind a POST to an object is S3's with one of its queries (RestoreObject here), and a
        // PATCH is none of S3's: refused before its fence (RequestRouteTest.underAnS3KindAWriteOfAFormS3DefinesForNoRequestIsRefusedBeforeItsFence).
        for (String[] write : new String[][] {{"PUT", ""}, {"POST", "?restore"}, {"DELETE", ""}, {"PATCH", ""}, {"POST", ""}}) {
            String method = write[0];
            // A DELETE has no body (one is refused as such: RequestRouteTest.aDeleteWithABodyIsAnsweredAndTheConnectionClosed).
            HttpResponse<String> stale = gateway.send(HttpRequest.newBuilder(gateway.uri(path + write[1])).header("Fencing-Token", "2")
                    .method(method, method.equals("DELETE") ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString("x"))
                    .build());
            assertThat(stale.statusCode()).as(String.join(" ", write)).isEqualTo(write[1].isEmpty() && !method.equals("PUT")
                    && !method.equals("DELETE") ? 400 : 412);
        }
        assertThat(gateway.get(path).body()).isEqualTo("v");
        assertThat(gateway.send(HttpRequest.newBuilder(gateway.uri(path)).method("HEAD", HttpRequest.BodyPublishers.noBody()).build())
                .statusCode()).isEqualTo(200);
        // OPTIONS reaches the store and its answer comes back as the store gave it. The memory store
        // serves no OPTIONS: it answers 405 with its own Allow list and no body, where a gateway
        // refusing the method itself would answer with a problem document and ask nothing of the store.
        int before = gateway.store.requestCount();
        HttpResponse<String> options = gateway.send(HttpRequest.newBuilder(gateway.uri(path))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build());
        assertThat(gateway.store.requestCount()).as("OPTIONS reached the store").isEqualTo(before + 1);
        assertThat(options.statusCode()).as(options.body()).isEqualTo(405);
        assertThat(options.headers().firstValue("Allow")).hasValue("GET, HEAD, PUT, POST, DELETE");
        assertThat(options.headers().firstValue("Content-Type")).as("the store's answer has no body type").isEmpty();
        assertThat(options.body()).isEmpty();
    }

    @Test
    void theSameTokenFromAnotherHolderGets412ReusedAndNeverReachesTheStore() throws Exception {
        assertThat(gateway.put(path, 30, "worker-a", "a").statusCode()).isEqualTo(201);
        assertThat(gateway.put(path, 30, "worker-a", "a2").statusCode()).isEqualTo(204);
        assertThat(gateway.put(path, 30, "b").statusCode()).as("no holder named: equal tokens pass").isEqualTo(204);
        int before = gateway.store.requestCount();

        HttpResponse<String> reused = gateway.put(path, 30, "worker-b", "b");

        assertThat(reused.statusCode()).isEqualTo(412);
        JsonNode problem = JSON.readTree(reused.body());
        assertThat(problem.get("type").asText()).endsWith("reused-token");
        assertThat(problem.get("holder").asText()).isEqualTo("worker-b");
        assertThat(problem.get("currentHolder").asText()).isEqualTo("worker-a");
        assertThat(gateway.store.requestCount()).isEqualTo(before);
        assertThat(gateway.put(path, 31, "worker-b", "b").statusCode()).as("a higher grant passes").isEqualTo(204);
    }

    /**
     * A fence first raised by a writer naming no holder takes the first holder admitted at its
     * token: two holders granted one token (the issuer lost state) do not both get in.
     */
    @Test
    void aFenceRaisedWithoutAHolderTakesTheFirstHolderAndRefusesAnotherAtItsToken() throws Exception {
        assertThat(gateway.put(path, 40, "anonymous").statusCode()).isEqualTo(201);
        assertThat(gateway.put(path, 40, "worker-a", "a").statusCode()).isEqualTo(204);
        int before = gateway.store.requestCount();

        HttpResponse<String> reused = gateway.put(path, 40, "worker-b", "b");

        assertThat(reused.statusCode()).as(reused.body()).isEqualTo(412);
        JsonNode problem = JSON.readTree(reused.body());
        assertThat(problem.get("type").asText()).endsWith("reused-token");
        assertThat(problem.get("currentHolder").asText()).isEqualTo("worker-a");
        assertThat(gateway.store.requestCount()).isEqualTo(before);
        assertThat(gateway.put(path, 40, "worker-a", "a2").statusCode()).isEqualTo(204);
    }

    @Test
    void connectTraceAndUnknownMethodsGet405AndAreNotForwarded() throws Exception {
        int before = gateway.store.requestCount();
        for (String line : new String[] {"TRACE " + path, "PROPFIND " + path, "put " + path, "CONNECT 127.0.0.1:1"}) {
            try (RawHttp raw = gateway.raw()) {
                String response = raw.send(line + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 5\r\n\r\n").readResponse();
                assertThat(RawHttp.status(response)).as(line).isEqualTo(405);
            }
        }
        assertThat(gateway.store.requestCount()).isEqualTo(before);
    }

    @Test
    void twoSpellingsOfOneObjectShareOneFence() {
        String plain = path + "/report-1.csv";
        String encoded = path + "/%72eport%2D1.csv?versionId=7";
        assertThat(gateway.put(encoded, 10, "new").statusCode()).isEqualTo(201);
        assertThat(gateway.put(plain, 9, "stale").statusCode()).isEqualTo(412);
        assertThat(fenceRow(plain)).isEqualTo(10);
    }

    @Test
    void ambiguousSpellingsAreRefusedWith400() throws Exception {
        int before = gateway.store.requestCount();
        for (String target : new String[] {path + "//x", path + "/./x", path + "/../x", path + "/a%2Fb", path + "/a%5Cb", path + "/a+b"}) {
            try (RawHttp raw = gateway.raw()) {
                String response = raw.send("PUT " + target + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 5\r\nContent-Length: 0\r\n\r\n").readResponse();
                assertThat(RawHttp.status(response)).as(target).isEqualTo(400);
                assertThat(response).contains("ambiguous-path");
            }
        }
        assertThat(gateway.store.requestCount()).isEqualTo(before);
    }

    /**
     * The store reads the fence row itself, over a connection of its own, the moment each write's
     * head arrives and before it answers: the row must already hold the write's token. While a
     * lock on the row holds the gateway's raise back, nothing reaches the store at all.
     */
    @Test
    void admittedFenceIsDurableBeforeTheStoreSeesTheWrite() throws Exception {
        DatabaseConfig direct = TestPostgres.config(TestPostgres.newSchema("durable_first"));
        DatabaseConfig database = new DatabaseConfig(direct.url(), direct.schema(), direct.user(), direct.password(), 1,
                direct.checkTimeout());
        var server = TestPostgres.server();
        String row = "SELECT token FROM " + database.schema() + ".fence WHERE resource = ?";
        List<Long> fenceAtArrival = new CopyOnWriteArrayList<>();
        try (Connection storeSide = DriverManager.getConnection(server.url(), server.user(), server.password());
             Connection locker = DriverManager.getConnection(server.url(), server.user(), server.password());
             LiteralStore store = new LiteralStore(head -> {
                 fenceAtArrival.add(readToken(storeSide, row, path));
                 return LiteralStore.Reply.of("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
             });
             Gateway fenced = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database,
                     Duration.ofSeconds(10)))) {
            // A new resource: the raise creates its row.
            assertThat(put(fenced, path, 20).statusCode()).isEqualTo(201);
            assertThat(fenceAtArrival).as("fence row read by the store as each write arrived").containsExactly(20L);

            // A raise of an existing row, held back by a lock on it: the write must wait for its commit.
            locker.setAutoCommit(false);
            try (PreparedStatement lock = locker.prepareStatement(row + " FOR UPDATE")) {
                lock.setString(1, path);
                lock.executeQuery().close();
            }
            var pending = CompletableFuture.supplyAsync(() -> put(fenced, path, 21));
            Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                    .until(() -> sessionsWaitingOnALock(locker) > 0);
            Thread.sleep(500); // time enough, on loopback, for a forwarded head to reach the store
            assertThat(fenceAtArrival).as("nothing reaches the store while the fence row is locked").containsExactly(20L);
            locker.rollback();

            HttpResponse<String> admitted = pending.get(10, TimeUnit.SECONDS);
            assertThat(admitted.statusCode()).as(admitted.body()).isEqualTo(201);
            assertThat(fenceAtArrival).as("fence row read by the store as each write arrived").containsExactly(20L, 21L);
        }
    }

    private static HttpResponse<String> put(Gateway gateway, String path, long token) {
        try {
            return HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path))
                            .header("Fencing-Token", Long.toString(token)).PUT(HttpRequest.BodyPublishers.ofString("t" + token)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The committed token of {@code resource}'s fence row, -1 when there is none. */
    private static long readToken(Connection connection, String select, String resource) {
        synchronized (connection) {
            try (PreparedStatement statement = connection.prepareStatement(select)) {
                statement.setString(1, resource);
                try (ResultSet result = statement.executeQuery()) {
                    return result.next() ? result.getLong(1) : -1;
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Sessions of this test database (the gateway's raise, here) waiting for a lock. */
    private static int sessionsWaitingOnALock(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                     + " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")) {
            result.next();
            return result.getInt(1);
        }
    }

    @Test
    void staleWriteWithExpectContinueGets412WithoutA100() throws Exception {
        gateway.put(path, 4, "v");
        try (RawHttp raw = gateway.raw()) {
            String response = raw.send("PUT " + path + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\n"
                    + "Expect: 100-continue\r\nContent-Length: 1000000\r\n\r\n").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(412);
            assertThat(raw.closedByPeer()).isTrue();
        }
    }

    @Test
    void admittedWriteWithExpectContinueGets100ThenTheStoreAnswer() throws Exception {
        try (RawHttp raw = gateway.raw()) {
            String interim = raw.send("PUT " + path + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 4\r\n"
                    + "Expect: 100-continue\r\nContent-Length: 5\r\n\r\n").readResponse();
            assertThat(RawHttp.status(interim)).isEqualTo(100);
            String response = raw.send("hello").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(201);
        }
        assertThat(new String(gateway.store.object(path).orElseThrow())).isEqualTo("hello");
    }

    @Test
    void keepAliveServesManyRequestsOnOneClientConnection() throws Exception {
        try (RawHttp raw = gateway.raw()) {
            for (int i = 1; i <= 5; i++) {
                String response = raw.send("PUT " + path + " HTTP/1.1\r\nHost: x\r\nFencing-Token: " + i
                        + "\r\nContent-Length: 1\r\n\r\n" + i).readResponse();
                assertThat(RawHttp.status(response)).isIn(201, 204);
            }
            String stale = raw.send("DELETE " + path + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\n\r\n").readResponse();
            assertThat(RawHttp.status(stale)).isEqualTo(412);
            String read = raw.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponse();
            assertThat(read).endsWith("5");
        }
    }

    @Test
    void aRefusedWriteWithASmallBodyHasItsBodyDroppedAndTheConnectionKept() throws Exception {
        gateway.put(path, 4, "v");
        try (RawHttp raw = gateway.raw()) {
            String stale = raw.send("PUT " + path + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\n"
                    + "Content-Length: 5\r\n\r\nstale").readResponse();
            assertThat(RawHttp.status(stale)).isEqualTo(412);
            // Had the body not been dropped, its bytes would now be read as a request.
            String read = raw.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponse();
            assertThat(RawHttp.status(read)).isEqualTo(200);
            assertThat(read).endsWith("v");
        }
        assertThat(new String(gateway.store.object(path).orElseThrow())).isEqualTo("v");
    }

    /**
     * Ten thousand one-byte chunks in one write: they are decoded while the fence is asked and
     * wait, then each is relayed in turn. Asking for the next from inside the delivery of the last
     * nested one call per chunk until the event loop's stack overflowed, and the write stalled.
     */
    @Test
    void aBodyOfTenThousandOneByteChunksSentInOneWriteIsRelayedWhole() throws Exception {
        StringBuilder body = new StringBuilder();
        StringBuilder chunks = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            char c = (char) ('a' + i % 26);
            body.append(c);
            chunks.append("1\r\n").append(c).append("\r\n");
        }
        try (RawHttp raw = gateway.rawWithWideReads()) {
            String response = raw.send("PUT " + path + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + chunks + "0\r\n\r\n").readResponse();
            assertThat(RawHttp.status(response)).as(response).isIn(201, 204);
        }
        assertThat(new String(gateway.store.object(path).orElseThrow())).isEqualTo(body.toString());
    }

    @Test
    void aRefusedWriteWithABodyOver64KiBClosesTheConnectionUnread() throws Exception {
        gateway.put(path, 4, "v");
        try (RawHttp raw = gateway.raw()) {
            String stale = raw.send("PUT " + path + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 3\r\n"
                    + "Content-Length: " + (64 * 1024 + 1) + "\r\n\r\n").readResponse();
            assertThat(RawHttp.status(stale)).isEqualTo(412);
            assertThat(raw.closedByPeer()).isTrue();
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredOneAtATimeInOrder() throws Exception {
        StringBuilder batch = new StringBuilder();
        for (int i = 10; i < 60; i++) {
            batch.append("PUT ").append(path).append(" HTTP/1.1\r\nHost: x\r\nFencing-Token: 4\r\n")
                    .append("Content-Length: 2\r\n\r\n").append(i);
        }
        try (RawHttp raw = gateway.raw()) {
            raw.send(batch.toString());
            for (int i = 10; i < 60; i++) {
                assertThat(RawHttp.status(raw.readResponse())).isIn(201, 204);
            }
        }
        assertThat(new String(gateway.store.object(path).orElseThrow())).isEqualTo("59");
    }

    @Test
    void aClientPipeliningPastTheDepthLimitIsDisconnected() throws Exception {
        String get = "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
        int answered = 0;
        try (RawHttp raw = gateway.raw()) {
            raw.send(get.repeat(1_000));
            try {
                while (answered < 1_000) {
                    raw.readResponse();
                    answered++;
                }
            } catch (java.io.IOException closed) {
                // expected: the gateway drops a connection with more than 128 requests unanswered
            }
        }
        assertThat(answered).isLessThan(1_000);
        try (RawHttp other = gateway.raw()) {
            assertThat(RawHttp.status(other.send(get).readResponse())).isIn(200, 404);
        }
    }

    private static long fenceRow(String resource) {
        return gateway.fenceRow(resource);
    }
}
