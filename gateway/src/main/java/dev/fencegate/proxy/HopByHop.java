package dev.fencegate.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Headers that describe one connection, not the message (RFC 9110 7.6.1). They are not passed
 * on; framing headers stay, because the codec re-frames the message from them.
 */
final class HopByHop {

    private static final List<CharSequence> ALWAYS = List.of(
            HttpHeaderNames.CONNECTION, HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.PROXY_CONNECTION,
            HttpHeaderNames.TE, HttpHeaderNames.UPGRADE, HttpHeaderNames.PROXY_AUTHORIZATION,
            HttpHeaderNames.PROXY_AUTHENTICATE, AsciiString.cached("http2-settings"));

    /**
     * Headers a Connection header may not name: removing them would change what is fenced or
     * framed, or take away the {@code Depth} the gateway sets on a DELETE (without it a WebDAV
     * store deletes a collection and everything fenced under it).
     */
    private static final Set<String> PROTECTED = Set.of(
            "fencing-token", "fencing-holder", "content-length", "transfer-encoding", "host", "depth");

    private HopByHop() {
    }

    /** The header names listed in Connection, lower-cased. */
    static List<String> nominated(HttpHeaders headers) {
        List<String> names = new ArrayList<>();
        for (String value : headers.getAll(HttpHeaderNames.CONNECTION)) {
            for (String name : value.split(",")) {
                String trimmed = name.trim().toLowerCase(Locale.ROOT);
                if (!trimmed.isEmpty()) {
                    names.add(trimmed);
                }
            }
        }
        return names;
    }

    /** The first protected header that Connection names, or null. */
    static String nominatesProtected(HttpHeaders headers) {
        for (String name : nominated(headers)) {
            if (PROTECTED.contains(name)) {
                return name;
            }
        }
        return null;
    }

    static void strip(HttpHeaders headers) {
        for (String name : nominated(headers)) {
            if (!PROTECTED.contains(name)) {
                headers.remove(name);
            }
        }
        for (CharSequence name : ALWAYS) {
            headers.remove(name);
        }
    }
}
