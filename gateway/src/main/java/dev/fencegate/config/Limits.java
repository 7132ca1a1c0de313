package dev.fencegate.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Bounds on what clients may send and who may vouch for them; past a bound the request is
 * answered and the connection closed.
 *
 * @param maxBodySize        largest request body relayed, 0 for no limit (413 above it)
 * @param maxHeaderCount     most header fields in a request head (431 above it)
 * @param maxConnections     most client connections open at once; more are closed on accept
 * @param trustedProxies     comma-separated client addresses whose Forwarded / X-Forwarded-* headers pass on
 * @param virtualHostDomains comma-separated base domains under which a Host names a bucket (refused for s3-path)
 * @param storeKind          how the store names objects, from the path and, for s3-virtual-host, the Host
 * @param headTimeout        longest a request head may take to arrive whole, from its first byte (from accept for the
 *                           first request); then 408 and a close, however steadily the bytes trickle
 * @param allowTemporaryNames whether a write may name an object {@code <name>-<UUID>} (S3 kinds and http), the name
 *                           S3Proxy's file store writes a PUT in progress to, or {@code <name>.<10 digits>} (webdav and
 *                           http), the name nginx's WebDAV store copies a PUT's body to (refused unless set)
 */
public record Limits(int maxInitialLineLength, int maxHeaderSize, long maxBodySize, int maxHeaderCount, int maxConnections,
                     String trustedProxies, String virtualHostDomains, StoreKind storeKind, Duration headTimeout,
                     boolean allowTemporaryNames) {

    public static final Duration DEFAULT_HEAD_TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern IPV4 = Pattern.compile("((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}"
            + "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");

    public Limits {
        if (maxInitialLineLength < 256) {
            throw new IllegalArgumentException("--max-uri-length: " + maxInitialLineLength + " (expected at least 256)");
        }
        if (maxHeaderSize < 1_024) {
            throw new IllegalArgumentException("--max-header-size: " + maxHeaderSize + " (expected at least 1024)");
        }
        if (maxBodySize < 0) {
            throw new IllegalArgumentException("--max-body-size: " + maxBodySize + " (expected 0 for no limit, or more)");
        }
        if (maxHeaderCount < 8 || maxHeaderCount > 10_000) {
            throw new IllegalArgumentException("--max-header-count: " + maxHeaderCount + " (expected 8 to 10000)");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("--max-connections: " + maxConnections + " (expected at least 1)");
        }
        Durations.requireTimeout("--head-timeout", headTimeout, Durations.LONGEST_TIMEOUT);
        trustedProxies = trustedProxies == null ? "" : trustedProxies.strip();
        split(trustedProxies).forEach(Limits::checkTrustedProxy);
        virtualHostDomains = virtualHostDomains == null ? "" : virtualHostDomains.strip();
        if (storeKind == StoreKind.S3_VIRTUAL_HOST) {
            checkVirtualHostDomains(split(virtualHostDomains));
        } else if (storeKind == StoreKind.S3_PATH) {
            // Under s3-path a Host below a domain is refused: one spelt so that no Host matches it
            // (a port, a trailing dot) would refuse nothing.
            split(virtualHostDomains).forEach(Limits::checkDomain);
        }
    }

    /** With the names S3Proxy's file store writes PUTs in progress to refused. */
    public Limits(int maxInitialLineLength, int maxHeaderSize, long maxBodySize, int maxHeaderCount, int maxConnections,
                  String trustedProxies, String virtualHostDomains, StoreKind storeKind, Duration headTimeout) {
        this(maxInitialLineLength, maxHeaderSize, maxBodySize, maxHeaderCount, maxConnections, trustedProxies,
                virtualHostDomains, storeKind, headTimeout, false);
    }

    public Limits(int maxInitialLineLength, int maxHeaderSize, long maxBodySize, int maxHeaderCount, int maxConnections,
                  String trustedProxies, String virtualHostDomains) {
        this(maxInitialLineLength, maxHeaderSize, maxBodySize, maxHeaderCount, maxConnections, trustedProxies,
                virtualHostDomains, StoreKind.S3_PATH, DEFAULT_HEAD_TIMEOUT);
    }

    public Limits(int maxInitialLineLength, int maxHeaderSize, long maxBodySize) {
        this(maxInitialLineLength, maxHeaderSize, maxBodySize, 100, 10_000, "", "localhost");
    }

    /** The same limits in front of another kind of store. */
    public Limits withStoreKind(StoreKind kind, String domains) {
        return new Limits(maxInitialLineLength, maxHeaderSize, maxBodySize, maxHeaderCount, maxConnections, trustedProxies, domains, kind,
                headTimeout, allowTemporaryNames);
    }

    /** The same limits, with names S3Proxy's file store writes PUTs in progress to allowed or not. */
    public Limits withTemporaryNames(boolean allowed) {
        return new Limits(maxInitialLineLength, maxHeaderSize, maxBodySize, maxHeaderCount, maxConnections, trustedProxies,
                virtualHostDomains, storeKind, headTimeout, allowed);
    }

    /** An address literal, decided without a DNS lookup: a name would trust whatever it resolves to. */
    private static void checkTrustedProxy(String address) {
        boolean literal = IPV4.matcher(address).matches();
        if (!literal && address.contains(":") && address.matches("[0-9a-fA-F:.]+")) {
            try {
                // In brackets, the text is read as an IPv6 literal or refused, never looked up.
                InetAddress.getByName("[" + address + "]");
                literal = true;
            } catch (UnknownHostException e) {
                literal = false;
            }
        }
        if (!literal) {
            throw new IllegalArgumentException("--trusted-proxies: '" + address
                    + "' (expected IP addresses such as 10.0.0.7 or fd00::7, separated by commas)");
        }
    }

    /**
     * The store compares Hosts exactly, so domains are too; one under another ({@code s3.example}
     * and {@code example}) would leave {@code b.s3.example} naming two buckets.
     */
    private static void checkVirtualHostDomains(List<String> domains) {
        if (domains.isEmpty()) {
            throw new IllegalArgumentException("--virtual-host-domains: empty (expected the store's base domains,"
                    + " e.g. s3.example.com, because --store-kind is s3-virtual-host)");
        }
        for (String domain : domains) {
            checkDomain(domain);
            for (String other : domains) {
                if (other.endsWith("." + domain)) {
                    throw new IllegalArgumentException("--virtual-host-domains: '" + other + "' is under '" + domain
                            + "' (expected no domain under another: a Host below both would name two buckets)");
                }
            }
        }
    }

    private static void checkDomain(String domain) {
        if (!domain.matches("[a-z0-9.-]+|\\[[0-9a-f:.]+\\]") || domain.startsWith(".") || domain.endsWith(".")) {
            throw new IllegalArgumentException("--virtual-host-domains: '" + domain
                    + "' (expected a lower-case host name or address, without port or trailing dot)");
        }
    }

    public static Limits defaults() {
        return new Limits(8_192, 16_384, 0);
    }

    public List<String> trustedProxyList() {
        return split(trustedProxies);
    }

    public List<String> virtualHostDomainList() {
        return split(virtualHostDomains);
    }

    private static List<String> split(String list) {
        return Arrays.stream(list.split(",")).map(String::strip).filter(item -> !item.isEmpty()).toList();
    }
}
