package dev.fencegate.proxy;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;

/**
 * What a store's answer tells about the connection it came on. A pooled connection is reused
 * only when both sides agree where the last exchange ended; otherwise the next client's request
 * could meet the rest of this one, and its answer go to the wrong client.
 */
final class StoreAnswers {

    private StoreAnswers() {
    }

    /** The answer's end is marked by its framing, not by the store closing the connection. */
    static boolean endsOnItsOwn(HttpRequest request, HttpResponse response) {
        int code = response.status().code();
        return HttpUtil.isContentLengthSet(response) || HttpUtil.isTransferEncodingChunked(response)
                || code == 204 || code == 304 || request.method().equals(HttpMethod.HEAD);
    }

    /**
     * An answer other than success to a request with a body, a redirect as much as an error: the
     * store may have answered without reading the body (as Python's http.server does), and the
     * unread rest would be read as the next request, its answer going to the next client.
     */
    static boolean mayHaveLeftBodyUnread(HttpRequest request, HttpResponse response) {
        return response.status().code() >= 300
                && (HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0);
    }
}
