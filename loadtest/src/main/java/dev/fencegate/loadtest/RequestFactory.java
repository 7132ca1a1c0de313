package dev.fencegate.loadtest;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.SplittableRandom;

/** Builds the wire form of a planned request; every write shares one read-only body. */
final class RequestFactory implements AutoCloseable {
    static final String FENCING_TOKEN = "Fencing-Token";

    private final HttpMethod method;
    private final String host;
    private final ByteBuf storage;
    private final ByteBuf body;

    RequestFactory(LoadSettings settings) {
        this.method = HttpMethod.valueOf(settings.method());
        this.host = settings.url().getHost() + ":" + settings.port();
        byte[] bytes = new byte[method == HttpMethod.GET ? 0 : settings.bodySize()];
        new SplittableRandom(settings.seed()).nextBytes(bytes);
        // Unreleasable: requests take duplicates of it, and the codec releases those freely.
        this.storage = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
        this.body = Unpooled.unreleasableBuffer(storage);
    }

    FullHttpRequest build(PlannedRequest planned) {
        FullHttpRequest request = new DefaultFullHttpRequest(
                HttpVersion.HTTP_1_1, method, planned.path(), body.duplicate());
        request.headers()
                .set(HttpHeaderNames.HOST, host)
                .set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        if (body.isReadable()) {
            request.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
        }
        if (planned.hasToken()) {
            request.headers().set(FENCING_TOKEN, planned.token());
        }
        return request;
    }

    @Override
    public void close() {
        storage.release();
    }
}
