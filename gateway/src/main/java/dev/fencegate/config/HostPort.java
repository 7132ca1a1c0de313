package dev.fencegate.config;

/** A listen or connect address. */
public record HostPort(String host, int port) {

    public HostPort {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("expected a host before ':'");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("expected a port from 0 to 65535, got " + port);
        }
    }

    /** Parses {@code HOST:PORT} or {@code [IPV6]:PORT}; the message says what was expected. */
    public static HostPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' (expected HOST:PORT, e.g. 127.0.0.1:8080)");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            throw new IllegalArgumentException("'" + text + "' (expected an IPv6 address in brackets: [IPV6]:PORT)");
        }
        int port;
        try {
            String digits = text.substring(colon + 1);
            if (!digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new NumberFormatException(digits);
            }
            port = Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' (expected a numeric port after ':')");
        }
        return new HostPort(host, port);
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
