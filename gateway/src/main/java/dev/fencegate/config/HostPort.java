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
        String digits = text.substring(colon + 1);
        if (digits.length() > 5 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + text + "' (expected a numeric port from 0 to 65535 after ':')");
        }
        int port = Integer.parseInt(digits);
        if (port > 65_535) {
            throw new IllegalArgumentException("'" + text + "' (expected a port from 0 to 65535, got " + port + ")");
        }
        return new HostPort(host, port);
    }

    /**
     * Whether only this machine can connect: {@code localhost}, 127.0.0.0/8 or ::1. Decided from
     * the text, without a DNS lookup; any other name counts as reachable from elsewhere.
     */
    public boolean isLoopback() {
        return host.equalsIgnoreCase("localhost")
                || host.matches("127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}")
                || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1");
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
