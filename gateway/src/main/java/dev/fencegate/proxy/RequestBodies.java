package dev.fencegate.proxy;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;

/** What a request's head tells of its body: whether there is one, and whether a refused one is read and dropped. */
final class RequestBodies {

    /** Largest body of a refused request read and dropped to keep the connection; above it, the connection closes. */
    private static final long DISCARDABLE_BODY = 64 * 1024;

    private RequestBodies() {
    }

    /**
     * A body the gateway reads and drops after answering, to keep the connection: none, or a
     * small one of declared length that the client is not holding back for a 100. A refused
     * writer that keeps writing then costs no new connection per refusal.
     */
    static boolean discardable(HttpRequest head) {
        if (HttpUtil.isTransferEncodingChunked(head)) {
            return false;
        }
        long length = HttpUtil.getContentLength(head, 0L);
        return length == 0 || length <= DISCARDABLE_BODY && !HttpUtil.is100ContinueExpected(head);
    }

    static boolean none(HttpRequest head) {
        return !HttpUtil.isTransferEncodingChunked(head) && HttpUtil.getContentLength(head, 0L) == 0L;
    }
}
