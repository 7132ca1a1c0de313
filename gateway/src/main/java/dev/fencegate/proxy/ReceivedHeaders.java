package dev.fencegate.proxy;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A request head's headers that also keep its Content-Length fields as the client sent them.
 * Under HTTP/1.0 Netty's decoder skips its check of repeated Content-Length fields and replaces
 * them with the first value, so {@link RequestScreen} would see one field where the client sent
 * several. Validated as the decoder's own headers are.
 */
final class ReceivedHeaders extends DefaultHttpHeaders {

    /** For the client-side decoder: heads whose Content-Length fields are kept as received. */
    static final HttpHeadersFactory FACTORY = new HttpHeadersFactory() {
        @Override
        public HttpHeaders newHeaders() {
            return new ReceivedHeaders();
        }

        @Override
        public HttpHeaders newEmptyHeaders() {
            return new ReceivedHeaders();
        }
    };

    /** Null until a head has a Content-Length field: most reads have none. */
    private List<String> contentLengths;

    private ReceivedHeaders() {
        super(DefaultHttpHeadersFactory.headersFactory().getNameValidator(),
                DefaultHttpHeadersFactory.headersFactory().getValueValidator());
    }

    /** Every Content-Length field of {@code headers} as received, for headers the decoder made; as they stand otherwise. */
    static List<String> contentLengths(HttpHeaders headers) {
        if (headers instanceof ReceivedHeaders received) {
            return received.contentLengths == null ? List.of() : Collections.unmodifiableList(received.contentLengths);
        }
        return headers.getAll(HttpHeaderNames.CONTENT_LENGTH);
    }

    @Override
    public HttpHeaders add(CharSequence name, Object value) {
        super.add(name, value);
        if (HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)) {
            if (contentLengths == null) {
                contentLengths = new ArrayList<>(1);
            }
            contentLengths.add(String.valueOf(value));
        }
        return this;
    }

    @Override
    public HttpHeaders add(String name, Object value) {
        return add((CharSequence) name, value);
    }
}
