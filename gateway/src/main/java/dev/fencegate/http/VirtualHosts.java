package dev.fencegate.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads the Host header as an S3 store does: {@code Host: bucket.s3.example} names a bucket under
 * a base domain, and, with virtual hosting on, any other name is a bucket too (CNAME style).
 *
 * @param domains the store's base domains; a Host that is a subdomain of one names a bucket
 */
public record VirtualHosts(List<String> domains) {

    private static final Pattern BUCKET = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?");
    private static final Pattern IPV4 = Pattern.compile("[0-9.]+");

    /** What a Host header names for a store with virtual hosting on. */
    public sealed interface Addressing {
        /** The Host is the store itself: the bucket is the first path segment. */
        record PathStyle() implements Addressing {
        }

        record Bucket(String name) implements Addressing {
        }

        /** Stores would read it differently, or as nothing at all. */
        record Unclear(String detail) implements Addressing {
        }
    }

    public VirtualHosts {
        domains = domains.stream().map(domain -> domain.toLowerCase(Locale.ROOT)).toList();
    }

    /** These domains and {@code host}, unless it is an IP address (under which no Host names a bucket) or listed already. */
    public VirtualHosts and(String host) {
        String name = host.toLowerCase(Locale.ROOT);
        if (name.contains(":") || IPV4.matcher(name).matches() || domains.contains(name)) {
            return this;
        }
        List<String> more = new ArrayList<>(domains);
        more.add(name);
        return new VirtualHosts(more);
    }

    /** The bucket a Host header value names, if it is a subdomain of a base domain. */
    public Optional<String> bucket(String host) {
        if (host == null) {
            return Optional.empty();
        }
        String name = withoutPort(host.trim()).toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        for (String domain : domains) {
            if (name.length() > domain.length() + 1 && name.endsWith("." + domain)) {
                return Optional.of(name.substring(0, name.length() - domain.length() - 1));
            }
        }
        return Optional.empty();
    }

    /** A port above it is malformed to S3Proxy (Guava's {@code HostAndPort}), which refuses the write after its fence went up. */
    private static final int MAX_PORT = 65_535;

    /**
     * Exact, as S3Proxy compares it: upper case, a trailing dot or a malformed port would name a
     * bucket on one store and another, or none, on the next, so they are unclear, not guessed.
     */
    public Addressing address(String host) {
        if (host == null || host.isEmpty()) {
            return new Addressing.Unclear("no Host header: the store reads the bucket from it");
        }
        int nameEnd = host.startsWith("[") ? host.indexOf(']') + 1 : host.indexOf(':');
        String name = nameEnd <= 0 ? host : host.substring(0, nameEnd);
        String port = nameEnd <= 0 || nameEnd == host.length() ? null : host.substring(nameEnd);
        if (port != null && (!port.matches(":[0-9]{1,5}") || Integer.parseInt(port, 1, port.length(), 10) > MAX_PORT)) {
            return new Addressing.Unclear("Host '" + host + "' has a malformed port");
        }
        if (domains.contains(name)) {
            return new Addressing.PathStyle();
        }
        if (name.startsWith("[") || IPV4.matcher(name).matches()) {
            return new Addressing.Unclear("Host '" + host + "' is an IP address, which S3Proxy reads as a bucket name and"
                    + " AWS as path-style; list it in --virtual-host-domains to mean path-style only if the store reads it so (AWS does;"
                    + " S3Proxy does not, and would fail every write through it after its fence went up)");
        }
        String bucket = name;
        for (String domain : domains) {
            if (name.endsWith("." + domain)) {
                if (isAddress(domain)) {
                    // S3Proxy compares the whole Host with its domain, so it reads 'b.127.0.0.1' as bucket
                    // 'b.127.0.0.1'; a store that takes the address as a base domain reads bucket 'b'.
                    return new Addressing.Unclear("Host '" + host + "' ends in the IP address '" + domain + "', under which"
                            + " stores read different buckets (the whole name, or what comes before the address); an"
                            + " address in --virtual-host-domains means path-style only");
                }
                bucket = name.substring(0, name.length() - domain.length() - 1);
            }
        }
        if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
            return new Addressing.Unclear("Host '" + host + "' names '" + bucket + "', which is not a bucket name every"
                    + " store reads alike (expected lower-case letters, digits, '.' and '-', under --virtual-host-domains "
                    + String.join(",", domains) + ")");
        }
        return new Addressing.Bucket(bucket);
    }

    private static boolean isAddress(String domain) {
        return domain.startsWith("[") || domain.contains(":") || IPV4.matcher(domain).matches();
    }

    private static String withoutPort(String host) {
        if (host.startsWith("[")) {
            return host; // an IPv6 literal names no bucket
        }
        int colon = host.lastIndexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }
}
