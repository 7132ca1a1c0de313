package dev.fencegate.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Locale;

/** Tells from a request's headers whether a store may read its body as aws-chunked. */
final class AwsChunkedBodies {

    private AwsChunkedBodies() {
    }

    /** Whether a store may read the body as aws-chunked: any of the headers S3 stores decide it by. */
    static boolean declaredBy(HttpHeaders headers) {
        if (headers.contains("x-amz-decoded-content-length")) {
            return true;
        }
        // Looked up before the values are listed: most requests carry neither header.
        if (headers.contains("x-amz-content-sha256")) {
            for (String payload : headers.getAll("x-amz-content-sha256")) {
                if (payload.strip().regionMatches(true, 0, "STREAMING-", 0, "STREAMING-".length())) {
                    return true;
                }
            }
        }
        if (headers.contains(HttpHeaderNames.CONTENT_ENCODING)) {
            for (String coding : headers.getAll(HttpHeaderNames.CONTENT_ENCODING)) {
                if (coding.toLowerCase(Locale.ROOT).contains("aws-chunked")) {
                    return true;
                }
            }
        }
        return false;
    }
}
