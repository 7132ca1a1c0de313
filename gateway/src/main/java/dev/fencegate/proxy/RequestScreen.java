package dev.fencegate.proxy;

import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.List;

/**
 * Refuses request heads whose meaning could differ between the gateway and the store, or that
 * exceed the edge limits. Runs after the strict decoder, before any method-specific handling;
 * null means the head is fine.
 */
final class RequestScreen {

    private RequestScreen() {
    }

    static Problem check(HttpRequest head, EdgePolicy policy) {
        HttpHeaders headers = head.headers();
        HttpVersion version = head.protocolVersion();
        if (!version.equals(HttpVersion.HTTP_1_1) && !version.equals(HttpVersion.HTTP_1_0)) {
            return Problem.of(Outcome.VERSION_NOT_SUPPORTED, "only HTTP/1.1 and HTTP/1.0 are served, not " + version);
        }
        if (!head.uri().startsWith("/")) {
            // Absolute-form and '*' targets: the store would be handed a target it may resolve differently.
            return bad("only origin-form request targets ('/path?query') are served");
        }
        if (headers.size() > policy.maxHeaderCount()) {
            return Problem.of(Outcome.HEADERS_TOO_LARGE, "more than " + policy.maxHeaderCount() + " header fields");
        }
        // HTTP/1.0 included: the request goes on as HTTP/1.1, which every store refuses without one.
        int hosts = headers.getAll(HttpHeaderNames.HOST).size();
        if (hosts != 1) {
            return bad("expected exactly one Host header, got " + hosts);
        }
        for (String upgrade : headers.getAll(HttpHeaderNames.UPGRADE)) {
            if (!isOnlyH2c(upgrade)) {
                return bad("protocol upgrades are not served (Upgrade: " + upgrade + ")");
            }
        }
        String nominated = HopByHop.nominatesProtected(headers);
        if (nominated != null) {
            return bad("Connection may not name " + nominated);
        }
        // Netty refuses these under HTTP/1.1 but, under HTTP/1.0, frames the body by the first value,
        // where a store or a proxy in front may take another (RFC 9112 6.3).
        List<String> lengths = ReceivedHeaders.contentLengths(headers);
        if (lengths.size() > 1 || lengths.stream().anyMatch(length -> length.indexOf(',') >= 0)) {
            return bad("expected one Content-Length value, got '" + String.join("', '", lengths) + "'");
        }
        if (headers.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            if (version.equals(HttpVersion.HTTP_1_0)) {
                return bad("HTTP/1.0 with Transfer-Encoding");
            }
            if (headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
                return bad("both Content-Length and Transfer-Encoding");
            }
            if (headers.getAll(HttpHeaderNames.TRANSFER_ENCODING).size() != 1
                    || !HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(headers.get(HttpHeaderNames.TRANSFER_ENCODING).trim())) {
                return bad("Transfer-Encoding other than a single 'chunked'");
            }
        }
        if (policy.maxBodySize() > 0 && HttpUtil.getContentLength(head, 0L) > policy.maxBodySize()) {
            return Problem.of(Outcome.PAYLOAD_TOO_LARGE, "Content-Length above the limit of " + policy.maxBodySize() + " bytes");
        }
        List<String> expects = headers.getAll(HttpHeaderNames.EXPECT);
        for (String expect : expects) {
            if (!HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect.trim())) {
                return Problem.of(Outcome.EXPECTATION_FAILED, "only 'Expect: 100-continue' is supported");
            }
        }
        if (expects.size() > 1) {
            return Problem.of(Outcome.EXPECTATION_FAILED, "expected one 'Expect: 100-continue', got " + expects.size());
        }
        return null;
    }

    /** The answer to a request the codec could not read. */
    static Problem decoderFailure(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return Problem.of(Outcome.URI_TOO_LONG, "request line longer than the configured limit");
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return Problem.of(Outcome.HEADERS_TOO_LARGE, "request headers larger than the configured limit");
        }
        return bad("request could not be parsed: " + cause.getMessage());
    }

    /**
     * An h2c offer may be ignored (RFC 9113 3.1); the JDK client sends one by default. The gateway
     * answers in HTTP/1.1 and strips the offer. Any other upgrade is refused.
     */
    private static boolean isOnlyH2c(String upgrade) {
        return upgrade.trim().equalsIgnoreCase("h2c");
    }

    private static Problem bad(String detail) {
        return Problem.of(Outcome.BAD_REQUEST, detail);
    }
}
