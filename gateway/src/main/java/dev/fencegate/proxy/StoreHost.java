package dev.fencegate.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.List;
import java.util.Locale;

/**
 * The {@code Host} a request goes to the store with in place of the client's, where the store's
 * resources leave the Host out (see {@link dev.fencegate.http.StoreIdentity#storeGetsTheClientsHost}),
 * and the client's, given back: the URLs a store writes into its answers ({@code Location} of a
 * 201 or a redirect, {@code Content-Location}) name the host it was asked under, and would
 * otherwise send the client to the store itself, past the gateway.
 */
record StoreHost(String store, String client) {

    private static final List<AsciiString> URL_HEADERS = List.of(HttpHeaderNames.LOCATION, HttpHeaderNames.CONTENT_LOCATION);

    void toStore(HttpHeaders request) {
        request.set(HttpHeaderNames.HOST, store);
    }

    /** Gives the client's host back to URLs of the store's own host in {@code answer}; others are left as they are. */
    void toClient(HttpHeaders answer) {
        for (AsciiString name : URL_HEADERS) {
            String url = answer.get(name);
            if (url != null) {
                String given = givenBack(url);
                if (!given.equals(url)) {
                    answer.set(name, given);
                }
            }
        }
    }

    private String givenBack(String url) {
        int authority = url.indexOf("://");
        if (authority <= 0) {
            return url;
        }
        int start = authority + 3;
        int end = start;
        while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        if (!url.substring(start, end).toLowerCase(Locale.ROOT).equals(store.toLowerCase(Locale.ROOT))) {
            return url;
        }
        return url.substring(0, start) + client + url.substring(end);
    }
}
