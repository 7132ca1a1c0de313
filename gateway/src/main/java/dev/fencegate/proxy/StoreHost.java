package dev.fencegate.proxy;

import dev.fencegate.config.GatewayConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code Host} a request goes to the store with in place of the client's, where the store's
 * resources leave the Host out (see {@link dev.fencegate.http.StoreIdentity#storeGetsTheClientsHost}),
 * and the client's, given back: the URLs a store writes into its answers ({@code Location} of a
 * 201 or a redirect, {@code Content-Location}) name the store as it was asked, and would otherwise
 * send the client to the store itself, past the gateway. A URL of the store becomes the same URL
 * of the gateway: the client's host, the data port's scheme, the path without {@code --upstream}'s.
 */
record StoreHost(Upstream upstream, String client) {

    private static final List<AsciiString> URL_HEADERS = List.of(HttpHeaderNames.LOCATION, HttpHeaderNames.CONTENT_LOCATION);
    /** An absolute or scheme-relative URL: scheme (none for the latter), authority, and the rest (path, query, fragment). */
    private static final Pattern ABSOLUTE = Pattern.compile("(?:([A-Za-z][A-Za-z0-9+.-]*):)?//([^/?#]*)(.*)", Pattern.DOTALL);

    /**
     * The store as {@code --upstream} names it, and the scheme clients reach the gateway by.
     *
     * @param host the Host the store is sent: its name, and its port if {@code --upstream} gives one
     */
    record Upstream(String scheme, String host, String name, int port, String pathPrefix, String clientScheme) {

        static Upstream of(GatewayConfig config) {
            URI upstream = config.upstream();
            return new Upstream(upstream.getScheme().toLowerCase(Locale.ROOT), config.upstreamHost(),
                    upstream.getHost().toLowerCase(Locale.ROOT), effectivePort(upstream.getScheme(), upstream.getPort()),
                    config.upstreamPathPrefix(), config.tls().enabled() ? "https" : "http");
        }

        /** Whether {@code authority}, in a URL of {@code scheme}, names this store. */
        boolean is(String scheme, String authority) {
            if (authority.contains("@")) {
                return false;
            }
            int colon = authority.startsWith("[") ? authority.indexOf(':', authority.indexOf(']')) : authority.lastIndexOf(':');
            String named = colon < 0 ? authority : authority.substring(0, colon);
            int port;
            try {
                port = effectivePort(scheme, colon < 0 ? -1 : Integer.parseInt(authority.substring(colon + 1)));
            } catch (NumberFormatException e) {
                return false;
            }
            return scheme.equalsIgnoreCase(this.scheme) && named.toLowerCase(Locale.ROOT).equals(name) && port == this.port;
        }

        private static int effectivePort(String scheme, int port) {
            return port >= 0 ? port : "https".equalsIgnoreCase(scheme) ? 443 : 80;
        }
    }

    void toStore(HttpHeaders request) {
        request.set(HttpHeaderNames.HOST, upstream.host());
    }

    /** Gives URLs of the store in {@code answer} back as the gateway's; others are left as they are. */
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

    String givenBack(String url) {
        String prefix = upstream.pathPrefix();
        if (url.startsWith("/") && !url.startsWith("//")) {
            // Relative to the URL the store was asked: the gateway's carries no --upstream path.
            if (prefix.isEmpty() || !under(url, prefix)) {
                return url;
            }
            String rest = url.substring(prefix.length());
            // The store's root with a query or fragment only is still a path, not a reference to the request's own.
            return rest.isEmpty() || rest.charAt(0) != '/' ? "/" + rest : rest;
        }
        Matcher absolute = ABSOLUTE.matcher(url);
        // A scheme-relative URL takes the scheme the store was asked by.
        if (!absolute.matches() || !upstream.is(absolute.group(1) == null ? upstream.scheme() : absolute.group(1), absolute.group(2))) {
            return url;
        }
        String rest = absolute.group(3);
        if (!prefix.isEmpty()) {
            if (!under(rest, prefix)) {
                return url;
            }
            rest = rest.substring(prefix.length());
        }
        String path = rest.isEmpty() || rest.charAt(0) != '/' ? "/" + rest : rest;
        return (absolute.group(1) == null ? "//" : upstream.clientScheme() + "://") + client + path;
    }

    /** Whether {@code path} (with any query or fragment) lies under {@code prefix}. */
    private static boolean under(String path, String prefix) {
        return path.startsWith(prefix) && (path.length() == prefix.length() || "/?#".indexOf(path.charAt(prefix.length())) >= 0);
    }
}
