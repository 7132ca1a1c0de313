package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.LiteralStore;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bodies on reads, and when a pooled store connection may carry the next request, against a
 * store modelled on Python's http.server (it reads no body it was not told to, so an unread body
 * becomes its next request). What the store parsed, and on which connection, is checked.
 */
@ExtendWith(NoNettyLeaks.class)
class StoreConnectionReuseIT {

    private static LiteralStore store;
    private static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        store = new LiteralStore(StoreConnectionReuseIT::reply);
        gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()),
                TestPostgres.config(TestPostgres.newSchema(StoreConnectionReuseIT.class.getSimpleName())), Duration.ofSeconds(10)));
    }

    @AfterAll
    static void stop() throws IOException {
        gateway.close();
        store.close();
    }

    /** The store's answers, by the first segment of the path; bodies echo the path, so a misrouted answer shows. */
    private static LiteralStore.Reply reply(String head) {
        String line = head.substring(0, head.indexOf("\r\n"));
        String path = line.split(" ")[1];
        if (path.startsWith("/early/")) {
            return LiteralStore.Reply.of("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n" + echo(path));
        }
        if (line.startsWith("HEAD ")) {
            return LiteralStore.Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n");
        }
        if (path.startsWith("/unframed/")) {
            return new LiteralStore.Reply("HTTP/1.1 200 OK\r\n\r\nunframed " + path, true, true);
        }
        if (path.startsWith("/chunked/")) {
            return LiteralStore.Reply.of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Integer.toHexString(path.length()) + "\r\n" + path + "\r\n0\r\n\r\n");
        }
        if (path.startsWith("/closing/")) {
            return new LiteralStore.Reply(echo(path).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"), true, true);
        }
        if (path.startsWith("/echo/smuggled-")) {
            // Answered late, so it is still owed when the gateway would hand the connection to the next request.
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (path.startsWith("/upload-then-close/")) {
            String xml = "<InitiateMultipartUploadResult><UploadId>" + UUID.randomUUID() + "</UploadId></InitiateMultipartUploadResult>";
            return new LiteralStore.Reply("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: " + xml.length() + "\r\n\r\n" + xml,
                    true, true);
        }
        if (path.startsWith("/two-answers/")) {
            // The first answer under its check, a second one right behind it in the same write.
            String xml = "<InitiateMultipartUploadResult><UploadId>" + UUID.randomUUID() + "</UploadId></InitiateMultipartUploadResult>";
            return LiteralStore.Reply.of("HTTP/1.1 200 OK\r\nContent-Length: " + xml.length() + "\r\n\r\n" + xml
                    + "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nsecond answer");
        }
        if (path.startsWith("/two-answers-plain/")) {
            return LiteralStore.Reply.of(echo(path) + "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nsecond answer");
        }
        if (path.startsWith("/no-id/")) {
            String xml = "<InitiateMultipartUploadResult><Key>k</Key></InitiateMultipartUploadResult>";
            return LiteralStore.Reply.of("HTTP/1.1 200 OK\r\nContent-Length: " + xml.length() + "\r\n\r\n" + xml);
        }
        if (path.startsWith("/huge-answer/")) {
            String xml = "<InitiateMultipartUploadResult><UploadId>u</UploadId>" + " ".repeat(70_000) + "</InitiateMultipartUploadResult>";
            return LiteralStore.Reply.of("HTTP/1.1 200 OK\r\nContent-Length: " + xml.length() + "\r\n\r\n" + xml);
        }
        if (path.startsWith("/early-ok/")) {
            return new LiteralStore.Reply("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", false, false);
        }
        if (path.startsWith("/unread-delete/")) {
            // A DELETE handler reads no body.
            return new LiteralStore.Reply("HTTP/1.1 204 No Content\r\n\r\n", false, false);
        }
        if (path.startsWith("/unread/")) {
            return new LiteralStore.Reply("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false, false);
        }
        if (path.startsWith("/unread-moved/")) {
            return new LiteralStore.Reply("HTTP/1.1 307 Temporary Redirect\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n",
                    false, false);
        }
        return LiteralStore.Reply.of(echo(path));
    }

    private static String echo(String path) {
        return "HTTP/1.1 200 OK\r\nContent-Length: " + path.length() + "\r\n\r\n" + path;
    }

    private static String unique(String prefix) {
        return prefix + UUID.randomUUID();
    }

    private static int connectionOf(String path) {
        return store.received().stream().filter(r -> r.requestLine().contains(" " + path + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("the store never saw " + path + ": " + store.received())).connection();
    }

    @Test
    void aReadWithABodyGets400AndNothingReachesTheStore() throws IOException {
        String smuggled = unique("/echo/smuggled-");
        String inner = "DELETE " + smuggled + " HTTP/1.1\r\nHost: x\r\n\r\n";
        String[] reads = {
            "GET " + unique("/echo/get-") + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + inner.length() + "\r\n\r\n" + inner,
            "GET " + unique("/echo/chunked-") + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Integer.toHexString(inner.length()) + "\r\n" + inner + "\r\n0\r\n\r\n",
            "HEAD " + unique("/echo/head-") + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + inner.length() + "\r\n\r\n" + inner,
            "OPTIONS " + unique("/echo/options-") + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + inner.length() + "\r\n\r\n" + inner};
        int before = store.received().size();
        for (String read : reads) {
            try (RawHttp raw = RawHttp.connect(gateway.port())) {
                String response = raw.send(read).readResponse();
                assertThat(RawHttp.status(response)).as(read).isEqualTo(400);
                if (!read.startsWith("HEAD")) {
                    assertThat(response).contains("body-on-read");
                }
                assertThat(raw.closedByPeer()).as("closed: " + read).isTrue();
            }
        }
        assertThat(store.received()).hasSize(before);
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            assertThat(RawHttp.status(raw.send("GET /echo/empty HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").readResponse()))
                    .as("an empty body is no body").isEqualTo(200);
        }
    }

    /** A store's DELETE handler reads no body: one sent would be its next request, a write nobody fenced. */
    @Test
    void aDeleteWithABodyGets400AndNothingReachesTheStore() throws IOException {
        String inner = "PUT " + unique("/echo/smuggled-") + " HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nEVIL";
        String[] deletes = {
            "DELETE " + unique("/unread-delete/") + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nContent-Length: "
                    + inner.length() + "\r\n\r\n" + inner,
            "DELETE " + unique("/unread-delete/") + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Integer.toHexString(inner.length()) + "\r\n" + inner + "\r\n0\r\n\r\n"};
        int before = store.received().size();
        for (String delete : deletes) {
            try (RawHttp raw = RawHttp.connect(gateway.port())) {
                String response = raw.send(delete).readResponse();
                assertThat(RawHttp.status(response)).as(delete).isEqualTo(400);
                assertThat(response).contains("body-on-delete");
                assertThat(raw.closedByPeer()).as("closed: " + delete).isTrue();
            }
        }
        assertThat(store.received()).hasSize(before);
        String empty = unique("/unread-delete/");
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            assertThat(RawHttp.status(raw.send("DELETE " + empty + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nContent-Length: 0\r\n\r\n")
                    .readResponse())).as("an empty body is no body").isEqualTo(204);
        }
        assertThat(store.received()).hasSize(before + 1);
    }

    @Test
    void informationalAnswersAreDroppedAndTheConnectionStaysInStep() throws IOException {
        String first = unique("/early/");
        String second = unique("/echo/");
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("GET " + first + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody();
            assertThat(RawHttp.status(response)).isEqualTo(200);
            assertThat(response).endsWith("\r\n\r\n" + first);
            assertThat(raw.send("GET " + second + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody()).endsWith("\r\n\r\n" + second);
        }
        assertThat(connectionOf(second)).as("the connection was reused, in step").isEqualTo(connectionOf(first));
    }

    @Test
    void anAnswerToHeadWithAContentLengthCarriesNoBodyAndTheConnectionStaysInStep() throws IOException {
        String head = unique("/echo/");
        String next = unique("/echo/");
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("HEAD " + head + " HTTP/1.1\r\nHost: x\r\n\r\n").readHead();
            assertThat(RawHttp.status(response)).isEqualTo(200);
            assertThat(response).containsIgnoringCase("content-length: 11");
            assertThat(raw.send("GET " + next + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody()).endsWith("\r\n\r\n" + next);
        }
        assertThat(connectionOf(next)).isEqualTo(connectionOf(head));
    }

    /** A redirect is as likely as an error to come before the store read the body (Apache's mod_dir, a moved collection). */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"/unread/, 404", "/unread-moved/, 307"})
    void aRedirectOrErrorAnswerToARequestWithABodyRetiresTheConnection(String prefix, int status) throws IOException {
        String write = unique(prefix);
        String smuggled = unique("/echo/smuggled-");
        String inner = "GET " + smuggled + " HTTP/1.1\r\nHost: x\r\n\r\n";
        String next = unique("/echo/next-");
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("PUT " + write + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nContent-Length: "
                    + inner.length() + "\r\n\r\n" + inner).readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(status);
            assertThat(raw.send("GET " + next + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody())
                    .as("the next client request gets its own answer, not the unread body's")
                    .endsWith("\r\n\r\n" + next);
        }
        assertThat(connectionOf(next)).isNotEqualTo(connectionOf(write));
    }

    @Test
    void aCreateMultipartUploadAnswerWithoutAReadableUploadIdIsNotHandedOn() throws IOException {
        for (String prefix : new String[] {"/no-id/", "/huge-answer/"}) {
            try (RawHttp raw = RawHttp.connect(gateway.port())) {
                String response = raw.send("POST " + unique(prefix) + "?uploads HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\n\r\n")
                        .readResponse();
                assertThat(RawHttp.status(response)).as(prefix).isEqualTo(502);
                assertThat(response).contains("store-answer-unreadable").doesNotContain("InitiateMultipartUploadResult");
            }
        }
    }

    /**
     * A store that answers one request twice (as one does that takes the rest of a body for a
     * request of its own) gets no second answer to the client, even while the first is kept under
     * its check, and its connection carries no other request.
     */
    @Test
    void aSecondAnswerToOneRequestReachesNoClientAndRetiresTheConnection() throws IOException {
        String create = unique("/two-answers/");
        String plain = unique("/two-answers-plain/");
        String next = unique("/echo/");
        String last = unique("/echo/");
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("POST " + create + "?uploads HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\n\r\n")
                    .readResponseWithBody();
            assertThat(RawHttp.status(response)).isEqualTo(200);
            assertThat(response).contains("<UploadId>").doesNotContain("second answer");
            assertThat(raw.send("GET " + next + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody())
                    .as("the next answer on the client's connection is its own").endsWith("\r\n\r\n" + next);
            assertThat(raw.send("GET " + plain + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody())
                    .as("an answer relayed as it comes").endsWith("\r\n\r\n" + plain);
            assertThat(raw.send("GET " + last + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody())
                    .as("and the one after it").endsWith("\r\n\r\n" + last);
        }
        assertThat(connectionOf(next)).isNotEqualTo(connectionOf(create + "?uploads"));
        assertThat(connectionOf(last)).isNotEqualTo(connectionOf(plain));
    }

    @Test
    void aCreateMultipartUploadAnswerIsHandedOnEvenWhenTheStoreClosesWhileItsIdIsRecorded() throws IOException {
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("POST " + unique("/upload-then-close/") + "?uploads HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\n\r\n")
                    .readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(200);
            assertThat(response).contains("<UploadId>");
        }
    }

    @Test
    void anAnswerBeforeTheRequestEndedRetiresBothConnections() throws Exception {
        String write = unique("/early-ok/");
        String next = unique("/echo/");
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("PUT " + write + " HTTP/1.1\r\nHost: x\r\nFencing-Token: 1\r\nContent-Length: 10\r\n\r\nhalf.")
                    .readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(201);
            assertThat(response).containsIgnoringCase("connection: close");
            assertThat(raw.closedByPeer()).as("the rest of the body has nowhere to go").isTrue();
        }
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            assertThat(raw.send("GET " + next + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody()).endsWith("\r\n\r\n" + next);
        }
        assertThat(connectionOf(next)).isNotEqualTo(connectionOf(write));
    }

    /**
     * HTTP/1.0 has no chunked coding: an answer whose length the store did not declare (chunked,
     * or ended by the store's close) reaches an HTTP/1.0 client as its bare body, ended by closing
     * the connection, even one the client asked to keep.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/chunked/", "/unframed/"})
    void anAnswerOfNoDeclaredLengthReachesAnHttp10ClientUnchunkedAndEndsWithTheConnection(String prefix) throws IOException {
        String path = unique(prefix);
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("GET " + path + " HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n").readToClose();
            assertThat(RawHttp.status(response)).isEqualTo(200);
            String head = response.substring(0, response.indexOf("\r\n\r\n") + 4).toLowerCase(Locale.ROOT);
            assertThat(head).doesNotContain("transfer-encoding").doesNotContain("content-length").contains("connection: close");
            assertThat(response.substring(head.length())).isEqualTo(prefix.equals("/unframed/") ? "unframed " + path : path);
        }
    }

    @Test
    void anUnframedOrClosingAnswerRetiresTheConnection() throws IOException {
        String unframed = unique("/unframed/");
        String closing = unique("/closing/");
        String afterUnframed = unique("/echo/");
        String afterClosing = unique("/echo/");
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            assertThat(raw.send("GET " + unframed + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody())
                    .endsWith("\r\n\r\nunframed " + unframed);
            assertThat(raw.send("GET " + afterUnframed + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody())
                    .endsWith("\r\n\r\n" + afterUnframed);
            assertThat(raw.send("GET " + closing + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody())
                    .endsWith("\r\n\r\n" + closing);
            assertThat(raw.send("GET " + afterClosing + " HTTP/1.1\r\nHost: x\r\n\r\n").readResponseWithBody())
                    .endsWith("\r\n\r\n" + afterClosing);
        }
        assertThat(connectionOf(afterUnframed)).isNotEqualTo(connectionOf(unframed));
        assertThat(connectionOf(afterClosing)).isNotEqualTo(connectionOf(closing));
    }
}
