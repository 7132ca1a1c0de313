package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.s3.S3Store;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Differential test against a real S3 store (S3Proxy, which also serves virtual-host style under
 * {@code localhost}): an object is written through one spelling with token 10, then every other
 * spelling of it is tried with token 9. Each must be refused, 400 or 412, and never applied,
 * whatever the store's own decoding makes of it.
 */
@ExtendWith(NoNettyLeaks.class)
class PathAliasIT {

    private static final String BUCKET = "alias";
    private static S3Store store;
    private static Gateway gateway;
    private String object;

    @BeforeAll
    static void start() throws InterruptedException {
        store = S3Store.anonymous("localhost");
        store.createBucket(BUCKET);
        gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()),
                TestPostgres.config(TestPostgres.newSchema(PathAliasIT.class.getSimpleName())), Duration.ofSeconds(10)));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        store.close();
    }

    /** Spellings of /alias/{dir}/report-1.csv: path, and Host (null for the path-style "localhost"). */
    static Stream<Arguments> aliases() {
        return Stream.of(
                Arguments.of("percent-encoded unreserved", "/alias/DIR/%72eport-1.csv", null),
                Arguments.of("lower-case hex", "/alias/DIR/report%2d1.csv", null),
                Arguments.of("encoded bucket", "/%61lias/DIR/report-1.csv", null),
                Arguments.of("with a query", "/alias/DIR/report-1.csv?x-id=PutObject", null),
                Arguments.of("dot segment", "/alias/DIR/./report-1.csv", null),
                Arguments.of("dot-dot segment", "/alias/DIR/x/../report-1.csv", null),
                Arguments.of("encoded dot-dot", "/alias/DIR/x/%2E%2E/report-1.csv", null),
                Arguments.of("dot-dot with a parameter", "/alias/DIR/x/..;/report-1.csv", null),
                Arguments.of("double slash", "/alias//DIR/report-1.csv", null),
                Arguments.of("encoded slash", "/alias/DIR%2Freport-1.csv", null),
                Arguments.of("backslash", "/alias/DIR\\report-1.csv", null),
                Arguments.of("encoded backslash", "/alias/DIR%5Creport-1.csv", null),
                Arguments.of("path parameter, which servlet stores drop", "/alias/DIR/report-1.csv;v=1", null),
                Arguments.of("virtual-host style", "/DIR/report-1.csv", "alias.localhost"),
                Arguments.of("virtual-host style, upper case", "/DIR/report-1.csv", "ALIAS.LocalHost"),
                Arguments.of("virtual-host style, trailing dot", "/DIR/report-1.csv", "alias.localhost."));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("aliases")
    void aStaleWriteThroughAnyOtherSpellingIsRefusedAndNeverApplied(String name, String target, String host) throws IOException {
        String dir = "d" + UUID.randomUUID();
        String key = dir + "/report-1.csv";
        assertThat(write("/" + BUCKET + "/" + key, "localhost", 10, "current")).isEqualTo(200);
        assertThat(store.object(BUCKET, key)).hasValue("current");

        int status = write(target.replace("DIR", dir), host == null ? "localhost" : host, 9, "stale");

        assertThat(status).as(name).isIn(400, 412);
        assertThat(store.object(BUCKET, key)).as(name).hasValue("current");
    }

    /** The differential test proves something only if the store really resolves these spellings to the object. */
    @Test
    void theStoreResolvesTheDecodedAndVirtualHostSpellingsToTheSameObject() throws IOException {
        String dir = "d" + UUID.randomUUID();
        assertThat(write("/" + BUCKET + "/" + dir + "/report-1.csv", "localhost", 10, "current")).isEqualTo(200);

        assertThat(read("/alias/" + dir + "/%72eport%2d1.csv", "localhost")).endsWith("current");
        assertThat(read("/" + dir + "/report-1.csv", "alias.localhost")).endsWith("current");
        assertThat(read("/alias/" + dir + "/x/../report-1.csv", "localhost")).as("dot segments resolved").endsWith("current");
    }

    private static int write(String target, String host, long token, String body) throws IOException {
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            return RawHttp.status(raw.send("PUT " + target + " HTTP/1.1\r\nHost: " + host + ":" + store.port() + "\r\n"
                    + "Fencing-Token: " + token + "\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body)
                    .readResponse());
        }
    }

    private static String read(String target, String host) throws IOException {
        try (RawHttp raw = RawHttp.connect(gateway.port())) {
            String response = raw.send("GET " + target + " HTTP/1.1\r\nHost: " + host + ":" + store.port() + "\r\n"
                    + "Connection: close\r\n\r\n").readResponse();
            assertThat(RawHttp.status(response)).isEqualTo(200);
            return response;
        }
    }
}
