package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.InMemoryFenceStore;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.SeededCases;
import dev.fencegate.testing.SeededCases.Gen;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Raw requests, mostly plausible and often hostile, through the real client pipeline in an
 * EmbeddedChannel, with the real store-connection code relaying into an embedded store. Every
 * input ends in one of two ways: one well-formed request that the store reads exactly as the
 * gateway read it, or an answer from the gateway itself; a request the codec cannot read is
 * answered and the connection closed. No buffer is leaked.
 */
class RequestPipelineProperties {

    @RegisterExtension
    static final NoNettyLeaks LEAKS = new NoNettyLeaks();

    private static final int CASES = 1000;
    private static final Map<String, Integer> ENDINGS = new ConcurrentHashMap<>();

    /** One raw request, and where its bytes are cut in two reads. */
    record Case(String input, int split) {
        static Case generate(Gen gen) {
            return new Case(request(gen), gen.intBetween(0, 400));
        }
    }

    static Stream<Named<Case>> cases() {
        return SeededCases.cases("raw-requests", CASES, Case::generate);
    }

    /** Both ends must be exercised, or the property proves little. */
    @AfterAll
    static void theCasesReachedTheStoreAndTheCodecsRefusal() {
        int total = ENDINGS.values().stream().mapToInt(Integer::intValue).sum();
        if (total == CASES) {
            assertThat(ENDINGS.getOrDefault("forwarded", 0) * 100 / total).as("percent forwarded; %s", ENDINGS)
                    .isGreaterThanOrEqualTo(5);
            assertThat(ENDINGS.getOrDefault("codec failure, answered", 0) * 100 / total).as("percent codec failures; %s", ENDINGS)
                    .isGreaterThanOrEqualTo(5);
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void everyInputIsEitherForwardedOnceAndReadAlikeOrAnsweredByTheGateway(Case c) {
        String input = c.input();
        int split = c.split();
        InMemoryFenceStore fences = new InMemoryFenceStore();
        EmbeddedStoreChannel.OPENED.get().clear();
        EmbeddedChannel client = clientPipeline(fences);
        try {
            byte[] bytes = input.getBytes(StandardCharsets.ISO_8859_1);
            int cut = Math.min(split, bytes.length);
            // Copies: the decoder owns what it is given and compacts it in place.
            client.writeInbound(Unpooled.copiedBuffer(bytes, 0, cut));
            client.runPendingTasks();
            if (client.isOpen()) {
                client.writeInbound(Unpooled.copiedBuffer(bytes, cut, bytes.length - cut));
                client.runPendingTasks();
            }

            Reference reference = Reference.decode(bytes);
            Forwarded forwarded = Forwarded.collect();
            if (forwarded.complete()) {
                answerFromStore();
                client.runPendingTasks();
            }
            List<String> answers = responses(client);
            ENDINGS.merge(forwarded.complete() ? "forwarded" : reference.failed() ? "codec failure, answered"
                    : forwarded.heads() > 0 ? "head forwarded, body cut" : "answered by the gateway", 1, Integer::sum);

            assertThat(forwarded.heads()).as("request heads forwarded").isLessThanOrEqualTo(1);
            assertThat(forwarded.malformed()).as("forwarded bytes the store cannot parse").isFalse();
            if (forwarded.complete()) {
                assertThat(reference.failed()).as("forwarded although the codec failed").isFalse();
                assertThat(forwarded.method()).isEqualTo(reference.method());
                assertThat(forwarded.uri()).isEqualTo(reference.uri());
                assertThat(forwarded.body()).as("body as the store reads it").isEqualTo(reference.body());
                assertThat(answers).as("the store's answer relayed").anyMatch(a -> a.startsWith("HTTP/1.1 200"));
            } else {
                assertThat(answers.stream().filter(a -> !a.startsWith("HTTP/1.1 100"))).as("gateway answers")
                        .allMatch(a -> Integer.parseInt(a.substring(9, 12)) >= 400);
            }
            if (reference.failed()) {
                assertThat(forwarded.complete()).isFalse();
                assertThat(answers).as("an answer to a request the codec failed on").isNotEmpty();
                assertThat(client.isOpen()).as("connection after a codec failure").isFalse();
            }
            client.close();
            client.runPendingTasks();
            for (EmbeddedStoreChannel store : EmbeddedStoreChannel.OPENED.get()) {
                assertThat(forwarded.complete() || !store.isOpen()).as("store side of an unfinished request closed").isTrue();
            }
        } finally {
            client.finishAndReleaseAll();
            for (EmbeddedStoreChannel store : EmbeddedStoreChannel.OPENED.get()) {
                store.finishAndReleaseAll();
            }
        }
    }

    private static EmbeddedChannel clientPipeline(InMemoryFenceStore fences) {
        return EmbeddedClientChannel.throughGateway(fences::admit);
    }

    private static void answerFromStore() {
        EmbeddedStoreChannel store = EmbeddedStoreChannel.OPENED.get().get(0);
        store.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", StandardCharsets.US_ASCII));
    }

    /** The response heads the client received, as text. */
    private static List<String> responses(EmbeddedChannel client) {
        List<String> heads = new ArrayList<>();
        for (String part : EmbeddedClientChannel.sentTo(client).split("(?=HTTP/1\\.1 \\d{3} )")) {
            if (part.startsWith("HTTP/1.1 ")) {
                heads.add(part);
            }
        }
        return heads;
    }

    /** How a strict HTTP/1.1 parser, configured as the gateway's, reads the first request in the client's bytes. */
    private record Reference(boolean failed, String method, String uri, String body) {
        static Reference decode(byte[] bytes) {
            EmbeddedChannel decoder = new EmbeddedChannel(new HttpServerCodec(new HttpDecoderConfig()
                    .setMaxInitialLineLength(1_024).setMaxHeaderSize(2_048).setValidateHeaders(true)
                    .setAllowDuplicateContentLengths(false).setStrictLineParsing(true).setUseRfc9112TransferEncoding(true)));
            try {
                decoder.writeInbound(Unpooled.copiedBuffer(bytes));
                boolean failed = false;
                String method = null;
                String uri = null;
                StringBuilder body = new StringBuilder();
                Object in;
                while ((in = decoder.readInbound()) != null) {
                    try {
                        failed |= ((HttpObject) in).decoderResult().isFailure();
                        if (in instanceof HttpRequest head) {
                            method = head.method().name();
                            uri = head.uri();
                        }
                        if (in instanceof HttpContent content) {
                            body.append(content.content().toString(StandardCharsets.ISO_8859_1));
                        }
                        if (in instanceof LastHttpContent || failed) {
                            break;
                        }
                    } finally {
                        ReferenceCountUtil.release(in);
                    }
                }
                return new Reference(failed, method, uri, body.toString());
            } finally {
                decoder.finishAndReleaseAll();
            }
        }
    }

    /** What reached the store, read by the store's side of the codec. */
    private record Forwarded(int heads, boolean complete, boolean malformed, String method, String uri, String body) {
        static Forwarded collect() {
            EmbeddedChannel decoder = new EmbeddedChannel(new HttpServerCodec(new HttpDecoderConfig().setStrictLineParsing(true)));
            try {
                for (EmbeddedStoreChannel store : EmbeddedStoreChannel.OPENED.get()) {
                    Object out;
                    while ((out = store.readOutbound()) != null) {
                        decoder.writeInbound(out);
                    }
                }
                int heads = 0;
                boolean complete = false;
                boolean malformed = false;
                String method = null;
                String uri = null;
                StringBuilder body = new StringBuilder();
                Object in;
                while ((in = decoder.readInbound()) != null) {
                    malformed |= ((HttpObject) in).decoderResult().isFailure();
                    if (in instanceof HttpRequest head) {
                        heads++;
                        method = head.method().name();
                        uri = head.uri();
                    }
                    if (in instanceof HttpContent content) {
                        body.append(content.content().toString(StandardCharsets.ISO_8859_1));
                        complete |= in instanceof LastHttpContent;
                    }
                    ReferenceCountUtil.release(in);
                }
                return new Forwarded(heads, complete, malformed, method, uri, body.toString());
            } finally {
                decoder.finishAndReleaseAll();
            }
        }
    }

    /** One request, assembled from pieces that are mostly valid, with a hostile one now and then. */
    private static String request(Gen gen) {
        // PUT and GET twice as often: a PATCH, and a POST to an object without S3's queries, are answered by the gateway under S3.
        String method = gen.pick("GET", "GET", "HEAD", "OPTIONS", "PUT", "PUT", "PUT", "POST", "DELETE", "PATCH", "CONNECT", "TRACE",
                "put", "PROPFIND");
        String target = gen.frequency(4, 1) == 0
                ? gen.pick("/b/k", "/b/%6B", "/b/k?versionId=1", "/b?delete", "/b/caf%C3%A9", "/b/k?restore")
                : gen.pick("//b/k", "/b/../k", "/b/k;v=1", "/b/a%2Fb", "http://h/b/k", "*", "/b/" + "x".repeat(1_100), "/b/k x");
        String version = gen.frequency(8, 1) == 0 ? "HTTP/1.1" : gen.pick("HTTP/1.0", "HTTP/1.2", "HTTP/2.0", "http/1.1");
        List<String> headers = gen.list(0, 5, () -> gen.frequency(6, 1) == 0 ? gen.pick(FINE_HEADERS) : gen.pick(HOSTILE_HEADERS));
        boolean host = gen.frequency(9, 1) == 0;
        String body = gen.pick("", "abc", "hello world", "<Delete><Object><Key>k</Key></Object></Delete>",
                "<Delete><Object><Key>../k</Key></Object></Delete>", "x".repeat(5_000));
        String framing = gen.frequency(4, 1) == 0 ? gen.pick("none", "length", "chunked") : gen.pick("short-length", "bad-chunk", "chunk-ext", "raw");
        String lineEnd = gen.frequency(12, 1) == 0 ? "\r\n" : gen.pick("\n", "\r");
        return assemble(method, target, version, headers, host, body, framing, lineEnd);
    }

    private static final String[] FINE_HEADERS = {
        "Fencing-Token: 5", "Fencing-Token: 7", "Fencing-Holder: w1", "Connection: close", "Connection: keep-alive",
        "Connection: X-A", "X-A: 1", "Expect: 100-continue", "Upgrade: h2c", "X-Forwarded-For: 10.0.0.1",
        "Authorization: AWS4-HMAC-SHA256 Credential=a/b/c/s3/aws4_request, SignedHeaders=host, Signature=0"};
    private static final String[] HOSTILE_HEADERS = {
        "Fencing-Token: 05", "Fencing-Token: +5", "Fencing-Token: 5, 6", "Host: y", "Connection: Fencing-Token",
        "Expect: other", "Upgrade: websocket", "Transfer-Encoding: chunked", "Transfer-Encoding: gzip, chunked",
        "Transfer-Encoding: identity", "Content-Length: 3", "Content-Length: 3, 3", "Content-Length: -1",
        "Content-Length: 999999", "X-Fold: a\r\n b", "X-Ctl: a\u0001b", "Bad Name: x", "X-Colon : x"};

    private static String assemble(String method, String target, String version, List<String> headers, boolean host,
                                   String body, String framing, String eol) {
        StringBuilder request = new StringBuilder(method).append(' ').append(target).append(' ').append(version).append(eol);
        if (host) {
            request.append("Host: x").append(eol);
        }
        for (String header : headers) {
            request.append(header).append(eol);
        }
        switch (framing) {
            case "length" -> request.append("Content-Length: ").append(body.length()).append(eol).append(eol).append(body);
            case "short-length" -> request.append("Content-Length: ").append(Math.max(0, body.length() - 1)).append(eol)
                    .append(eol).append(body);
            case "chunked" -> request.append("Transfer-Encoding: chunked").append(eol).append(eol)
                    .append(body.isEmpty() ? "" : Integer.toHexString(body.length()) + "\r\n" + body + "\r\n").append("0\r\n\r\n");
            case "bad-chunk" -> request.append("Transfer-Encoding: chunked").append(eol).append(eol)
                    .append("3\r\nabc\r\nzz\r\n").append(body).append("\r\n0\r\n\r\n");
            case "chunk-ext" -> request.append("Transfer-Encoding: chunked").append(eol).append(eol)
                    .append(Integer.toHexString(body.length() + 1)).append(";ext=\"a\nb\"\r\n").append(body).append("!\r\n0\r\n\r\n");
            case "raw" -> request.append(eol).append(body);
            default -> request.append(eol);
        }
        return request.toString();
    }
}
