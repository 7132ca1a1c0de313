package dev.fencegate.admin;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps web pages away from the fence endpoints. With no admin token (the loopback default) a
 * page in the operator's browser could otherwise POST a cross-site form to
 * {@code /fences/...?token=9223372036854775807} and lock a resource for good, or reach the port
 * by DNS rebinding. Programs such as curl send none of what browsers add, so {@code /fences}
 * requests are refused when they carry an {@code Origin}, a {@code Sec-Fetch-Site} other than
 * {@code none} (typed in the address bar), a {@code Host} that is neither an IP literal,
 * {@code localhost} nor the admin listen host (a rebound name; checked only without a token,
 * which a rebound page cannot know, so that operators may reach a tokened port by any name), or,
 * on a change, a body type an HTML form can send without a preflight. Probes and metrics stay
 * open: they change nothing.
 */
public final class CrossSiteGate {

    /** Types a page may send cross-site without asking first (the CORS-safelisted request types). */
    private static final Set<String> FORM_TYPES = Set.of("application/x-www-form-urlencoded", "multipart/form-data", "text/plain");

    /** What a browser adds to a request, from its headers. */
    public record Signals(Optional<String> origin, Optional<String> secFetchSite, Optional<String> host,
                          Optional<String> contentType) {

        public static Signals none() {
            return new Signals(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
        }
    }

    private final String listenHost;
    private final boolean tokenRequired;

    /** {@code listenHost}: the admin listen address's host, as configured; {@code tokenRequired}: an admin token is set. */
    public CrossSiteGate(String listenHost, boolean tokenRequired) {
        this.listenHost = bare(listenHost.toLowerCase(Locale.ROOT));
        this.tokenRequired = tokenRequired;
    }

    /** Why the request is refused, or empty when it may go on to the endpoints; the caller logs it. */
    public Optional<AdminResponse> refusal(String method, String rawPath, Signals signals) {
        if (!rawPath.startsWith(FenceRoutes.PREFIX)) {
            return Optional.empty();
        }
        return judge(method, signals);
    }

    private Optional<AdminResponse> judge(String method, Signals signals) {
        if (signals.origin().isPresent()) {
            return refuse(403, "Origin: " + signals.origin().get() + " (expected none: the fence endpoints refuse requests from web pages)");
        }
        if (signals.secFetchSite().isPresent() && !signals.secFetchSite().get().equalsIgnoreCase("none")) {
            return refuse(403, "Sec-Fetch-Site: " + signals.secFetchSite().get()
                    + " (expected none: the fence endpoints refuse requests from web pages)");
        }
        if (!tokenRequired && signals.host().isPresent() && !allowedHost(signals.host().get())) {
            return refuse(403, "Host: " + signals.host().get() + " (expected localhost, an IP address or " + listenHost
                    + ": another name may be a rebound DNS name)");
        }
        boolean change = !method.equals("GET") && !method.equals("HEAD");
        if (change && signals.contentType().map(CrossSiteGate::formType).filter(FORM_TYPES::contains).isPresent()) {
            return refuse(415, "Content-Type: " + signals.contentType().get()
                    + " (expected none: a raise takes its token in the query, and form bodies are what web pages send)");
        }
        return Optional.empty();
    }

    private boolean allowedHost(String hostHeader) {
        String host = hostOf(hostHeader.strip().toLowerCase(Locale.ROOT));
        return host.equals("localhost") || host.equals(listenHost) || isIpLiteral(host);
    }

    /** The host part of a Host header: without the port, and an IPv6 literal without its brackets. */
    private static String hostOf(String hostHeader) {
        if (hostHeader.startsWith("[")) {
            int end = hostHeader.indexOf(']');
            return end < 0 ? hostHeader : hostHeader.substring(1, end);
        }
        int colon = hostHeader.lastIndexOf(':');
        return colon < 0 ? hostHeader : hostHeader.substring(0, colon);
    }

    private static String bare(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** A rebound name is a name; an address cannot be rebound. Checked by shape, never resolved. */
    private static boolean isIpLiteral(String host) {
        return host.matches("(\\d{1,3}\\.){3}\\d{1,3}") || host.contains(":") && host.matches("[0-9a-f:.]+");
    }

    private static String formType(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }

    private static Optional<AdminResponse> refuse(int status, String error) {
        return Optional.of(AdminResponse.json(status, Map.of("error", error)));
    }
}
