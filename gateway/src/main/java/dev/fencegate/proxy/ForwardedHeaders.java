package dev.fencegate.proxy;

import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Headers that claim where a request came from. A client could forge them to pass the store's
 * address-based rules or poison its logs, so they pass on only from a trusted proxy. Host is
 * not one of them: it is signed by S3 clients and passes unchanged.
 */
final class ForwardedHeaders {

    private static final List<String> NAMES = List.of("forwarded", "x-real-ip");
    /** Every X-Forwarded-* (For, Host, Proto, Port, Prefix, Uri, ...). */
    private static final String PREFIX = "x-forwarded-";

    private ForwardedHeaders() {
    }

    static void dropUnlessTrusted(HttpHeaders headers, SocketAddress client, Set<InetAddress> trusted) {
        if (client instanceof InetSocketAddress address && trusted.contains(address.getAddress())) {
            return;
        }
        // Made only when there is something to drop: most requests carry none of these.
        List<String> dropped = null;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            CharSequence name = it.next().getKey();
            if (claimsOrigin(name)) {
                if (dropped == null) {
                    dropped = new ArrayList<>(2);
                }
                dropped.add(name.toString());
            }
        }
        if (dropped != null) {
            dropped.forEach(headers::remove);
        }
    }

    /**
     * Whether {@code name} is one of them, an underscore read as a hyphen: servers that pass
     * headers on as CGI-style variables ({@code HTTP_X_FORWARDED_FOR}) read {@code X_Forwarded_For} so.
     */
    static boolean claimsOrigin(CharSequence name) {
        for (String claim : NAMES) {
            if (HeaderSpellings.sameName(name, claim)) {
                return true;
            }
        }
        return name.length() > PREFIX.length() && HeaderSpellings.sameName(name.subSequence(0, PREFIX.length()), PREFIX);
    }
}
