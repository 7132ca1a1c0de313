package dev.fencegate.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Answers as the gateway does, on loopback, and remembers every request it saw: a write whose
 * token is below the fence gets 412, as an S3 XML error or as problem+json by the gateway's rule; {@code /precondition} answers 412 as a store would for its own reasons.
 */
final class FakeGateway implements AutoCloseable {

    record Seen(String method, String path, com.sun.net.httpserver.Headers headers) {
    }

    final List<Seen> seen = new CopyOnWriteArrayList<>();
    final AtomicLong fence = new AtomicLong();
    /** Whether {@code amz-sdk-invocation-id} makes an S3 client, as it does for the gateway since it was read; an earlier one's rule without it. */
    volatile boolean readsSdkInvocationId = true;
    private final HttpServer server;

    FakeGateway() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::answer);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void answer(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), exchange.getRequestHeaders()));
        String token = exchange.getRequestHeaders().getFirst("Fencing-Token");
        if (exchange.getRequestURI().getPath().endsWith("/precondition")) {
            reply(exchange, 412, "text/plain", "the store's own precondition failed");
        } else if (WriteFencing.isWrite(exchange.getRequestMethod()) && token != null && Long.parseLong(token) < fence.get()) {
            boolean s3 = answersInS3Xml(exchange);
            reply(exchange, 412, s3 ? "application/xml" : "application/problem+json", s3
                    ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>FencingTokenStale</Code>"
                      + "<Message>token " + token + " is below the fence " + fence.get() + "</Message></Error>"
                    : "{\"type\":\"urn:fencegate:problem:stale-token\",\"title\":\"Fencing token is below the fence\","
                      + "\"status\":412,\"token\":" + token + ",\"currentToken\":" + fence.get() + "}");
        } else {
            if (token != null) {
                fence.accumulateAndGet(Long.parseLong(token), Math::max);
            }
            reply(exchange, 200, "text/plain", "stored");
        }
    }

    /**
     * The gateway's rule (its {@code ErrorFormat}): S3 XML to what only S3 clients send, a SigV4 or
     * V2 {@code Authorization}, {@code x-amz-content-sha256}, {@code amz-sdk-invocation-id} or a
     * presigned query; problem+json to the rest (an earlier gateway's, which did not read
     * {@code amz-sdk-invocation-id}, to an anonymous SDK's bodiless write too).
     */
    private boolean answersInS3Xml(HttpExchange exchange) {
        if (readsSdkInvocationId && exchange.getRequestHeaders().containsKey("amz-sdk-invocation-id")) {
            return true;
        }
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization != null && (authorization.startsWith("AWS4-HMAC-SHA256 ") || authorization.startsWith("AWS "))) {
            return true;
        }
        if (exchange.getRequestHeaders().containsKey("x-amz-content-sha256")) {
            return true;
        }
        String query = exchange.getRequestURI().getRawQuery();
        return query != null && Arrays.stream(query.split("&")).map(parameter -> parameter.split("=", 2)[0].toLowerCase(Locale.ROOT))
                .anyMatch(name -> name.equals("x-amz-algorithm") || name.equals("awsaccesskeyid"));
    }

    private static void reply(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
