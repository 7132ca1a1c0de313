package dev.fencegate.proxy;

import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Refuses request heads whose meaning could differ between the gateway and the store. Runs
 * after the strict decoder, before any method-specific handling; null means the head is fine.
 */
final class RequestScreen {

    private RequestScreen() {
    }

    static Problem check(HttpRequest head) {
        HttpHeaders headers = head.headers();
        String upgrade = headers.get(HttpHeaderNames.UPGRADE);
        if (upgrade != null && !isOnlyH2c(upgrade)) {
            return bad("protocol upgrades are not served (Upgrade: " + upgrade + ")");
        }
        String nominated = HopByHop.nominatesProtected(headers);
        if (nominated != null) {
            return bad("Connection may not name " + nominated);
        }
        if (headers.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            if (head.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
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
        String expect = headers.get(HttpHeaderNames.EXPECT);
        if (expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect.trim())) {
            return Problem.of(Outcome.EXPECTATION_FAILED, "only 'Expect: 100-continue' is supported");
        }
        return null;
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
