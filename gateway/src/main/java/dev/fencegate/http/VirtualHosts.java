package dev.fencegate.http;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Recognises virtual-host-style S3 requests ({@code Host: bucket.s3.example}), where the bucket
 * is named by the Host header and not by the path. The gateway keys fences by path, so a write
 * in that style would be fenced under the wrong resource; such writes are refused instead.
 *
 * @param domains the store's base domains; a Host that is a subdomain of one names a bucket
 */
public record VirtualHosts(List<String> domains) {

    public VirtualHosts {
        domains = domains.stream().map(domain -> domain.toLowerCase(Locale.ROOT)).toList();
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

    private static String withoutPort(String host) {
        if (host.startsWith("[")) {
            return host; // an IPv6 literal names no bucket
        }
        int colon = host.lastIndexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }
}
