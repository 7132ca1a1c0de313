package dev.fencegate.config;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;

/** Everything the gateway needs, validated once at start and immutable afterwards. */
public record GatewayConfig(
        HostPort listen,
        HostPort adminListen,
        URI upstream,
        DatabaseConfig database,
        Duration upstreamConnectTimeout,
        Duration upstreamTimeout,
        Duration clientIdleTimeout,
        Limits limits,
        SafetyConfig safety,
        int ioThreads,
        OperationsConfig operations,
        ScopeConfig scopes,
        TlsConfig tls) {

    /** Without TLS on the data port. */
    public GatewayConfig(HostPort listen, HostPort adminListen, URI upstream, DatabaseConfig database,
                         Duration upstreamConnectTimeout, Duration upstreamTimeout, Duration clientIdleTimeout,
                         Limits limits, SafetyConfig safety, int ioThreads, OperationsConfig operations, ScopeConfig scopes) {
        this(listen, adminListen, upstream, database, upstreamConnectTimeout, upstreamTimeout, clientIdleTimeout,
                limits, safety, ioThreads, operations, scopes, TlsConfig.off());
    }

    /** Without scopes: every object is its own resource. */
    public GatewayConfig(HostPort listen, HostPort adminListen, URI upstream, DatabaseConfig database,
                         Duration upstreamConnectTimeout, Duration upstreamTimeout, Duration clientIdleTimeout,
                         Limits limits, SafetyConfig safety, int ioThreads, OperationsConfig operations) {
        this(listen, adminListen, upstream, database, upstreamConnectTimeout, upstreamTimeout, clientIdleTimeout,
                limits, safety, ioThreads, operations, ScopeConfig.none());
    }

    /** Without operations settings: no access log, no admin token (so the admin port must be loopback). */
    public GatewayConfig(HostPort listen, HostPort adminListen, URI upstream, DatabaseConfig database,
                         Duration upstreamConnectTimeout, Duration upstreamTimeout, Duration clientIdleTimeout,
                         Limits limits, SafetyConfig safety, int ioThreads) {
        this(listen, adminListen, upstream, database, upstreamConnectTimeout, upstreamTimeout, clientIdleTimeout,
                limits, safety, ioThreads, OperationsConfig.defaults());
    }

    public GatewayConfig {
        if (upstream.getRawAuthority() != null && upstream.getRawAuthority().contains("@")) {
            throw new IllegalArgumentException("--upstream: '" + SettingValue.withoutCredentials(upstream.toString())
                    + "' (expected http://HOST[:PORT][/PATH] without a user or password: the gateway would not send them,"
                    + " the store's clients authenticate themselves)");
        }
        String scheme = upstream.getScheme();
        if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme)) || upstream.getHost() == null) {
            throw new IllegalArgumentException("--upstream: '" + upstream + "' (expected http://HOST[:PORT][/PATH] or https://HOST[:PORT][/PATH])");
        }
        if (!upstreamTls(upstream) && !tls.storeCa().isEmpty()) {
            throw new IllegalArgumentException("--upstream-ca: '" + tls.storeCa() + "' set, but --upstream '" + upstream
                    + "' is plain HTTP (expected an https:// store, or no --upstream-ca)");
        }
        if (upstream.getPort() == 0 || upstream.getPort() > 65_535) {
            throw new IllegalArgumentException("--upstream: '" + upstream + "' (expected a port from 1 to 65535)");
        }
        if (upstream.getRawQuery() != null || upstream.getRawFragment() != null) {
            throw new IllegalArgumentException("--upstream: '" + upstream + "' (expected no query or fragment)");
        }
        requireStoreNameListed(upstream, limits);
        requireNoPathForS3(upstream, limits);
        requirePlainPathSegments(upstream);
        if (ioThreads < 1 || ioThreads > 256) {
            // 0, one per core, is turned into the count before this record is made.
            throw new IllegalArgumentException("--io-threads: " + ioThreads + " (expected 0 for one per core, or 1 to 256)");
        }
        Durations.requireTimeout("--upstream-connect-timeout", upstreamConnectTimeout, Durations.LONGEST_TIMEOUT);
        Durations.requireTimeout("--upstream-timeout", upstreamTimeout, Durations.LONGEST_TIMEOUT);
        Durations.requireTimeout("--client-idle-timeout", clientIdleTimeout, Durations.LONGEST_TIMEOUT);
        if (adminListen.port() != 0 && sameListener(listen, adminListen)) {
            throw new IllegalArgumentException("--admin-listen: " + adminListen + " (expected a port other than --listen "
                    + listen + "'s: both cannot listen on it)");
        }
        HostPort store = addressOf(upstream);
        for (HostPort own : new HostPort[] {listen, adminListen}) {
            if (reaches(store, own)) {
                // Every request would come back to the gateway, round and round until the connections ran out.
                throw new IllegalArgumentException("--upstream: '" + upstream + "' (expected the store's address, not this gateway's own "
                        + (own == listen ? "--listen " : "--admin-listen ") + own + ")");
            }
        }
        if (!adminListen.isLoopback() && operations.adminTokenIfSet().isEmpty()) {
            // The admin port can raise fences; off loopback it must not be open to whoever reaches it.
            throw new IllegalArgumentException("--admin-token: missing (expected a token of 16 to 512 visible ASCII characters,"
                    + " or FENCEGATE_ADMIN_TOKEN, because --admin-listen " + adminListen + " is not a loopback address)");
        }
    }

    /**
     * Whether connecting to {@code store} reaches the listener at {@code own}, as far as the text
     * tells without a lookup: the same spelling, the same address in any of its spellings
     * ({@code localhost}, {@code 127.1}, {@code ::ffff:127.0.0.1}), any address of this host
     * ({@code 0.0.0.0}), or loopback when {@code own} listens on every address. A name other than
     * {@code localhost} is compared by its spelling only.
     */
    static boolean reaches(HostPort store, HostPort own) {
        if (own.port() != store.port()) {
            return false;
        }
        if (own.host().equalsIgnoreCase(store.host())) {
            return true;
        }
        InetAddress to = literal(store.host());
        InetAddress at = literal(own.host());
        if (to == null || at == null) {
            return false;
        }
        return to.isAnyLocalAddress() || at.isAnyLocalAddress() && to.isLoopbackAddress() || at.equals(to);
    }

    /**
     * Whether listening on {@code a} and on {@code b} takes one port of this host, as far as the text
     * tells without a lookup: the same port, and the same spelling, the same address in another
     * spelling ({@code localhost} and {@code 127.0.0.1}), or every address on either side.
     */
    static boolean sameListener(HostPort a, HostPort b) {
        if (a.port() != b.port()) {
            return false;
        }
        if (a.host().equalsIgnoreCase(b.host()) || isWildcard(a.host()) || isWildcard(b.host())) {
            return true;
        }
        InetAddress first = literal(a.host());
        InetAddress second = literal(b.host());
        return first != null && second != null && (first.isAnyLocalAddress() || second.isAnyLocalAddress() || first.equals(second));
    }

    /** The address {@code host} spells, {@code localhost} as the loopback address; null for another name. */
    private static InetAddress literal(String host) {
        if (host.equalsIgnoreCase("localhost")) {
            return InetAddress.getLoopbackAddress();
        }
        if (!host.contains(":") && !host.matches("[0-9.]+")) {
            return null;
        }
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
    }

    /**
     * A store reads the name it is reached by as itself (path-style) and a name below it as that
     * bucket; under {@code s3-virtual-host} the gateway reads an unlisted name as a bucket
     * (CNAME style), so with that name unlisted one object would have two fences, one per spelling.
     * An IP address is never a bucket's name, so it need not be listed.
     */
    private static void requireStoreNameListed(URI upstream, Limits limits) {
        String host = upstream.getHost().toLowerCase(Locale.ROOT);
        // A fully qualified name's final dot names the same host, and domains are listed without it.
        host = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        if (limits.storeKind() != StoreKind.S3_VIRTUAL_HOST || host.startsWith("[") || host.matches("[0-9.]+")
                || limits.virtualHostDomainList().contains(host)) {
            return;
        }
        throw new IllegalArgumentException("--virtual-host-domains: '" + String.join(",", limits.virtualHostDomainList())
                + "' (expected the --upstream host name '" + host + "' among them: the store reads a Host of '" + host
                + "' as path-style and 'bucket." + host + "' as bucket 'bucket', which an unlisted name would make buckets '"
                + host + "' and 'bucket." + host + "', two fences for one object)");
    }

    /**
     * An S3 store reads the bucket from the first segment of the path it gets: behind a path of the
     * upstream's, every client's bucket would be a key in that one, and a DeleteObjects request's
     * keys (named in the bucket of the client's path) deleted in another bucket than the one fenced.
     */
    public static void requireNoPathForS3(URI upstream, Limits limits) {
        String path = upstream.getRawPath() == null ? "" : upstream.getRawPath();
        boolean s3 = limits.storeKind() == StoreKind.S3_PATH || limits.storeKind() == StoreKind.S3_VIRTUAL_HOST;
        if (s3 && !path.isEmpty() && !path.equals("/")) {
            throw new IllegalArgumentException("--upstream: '" + upstream + "' (expected no path under --store-kind "
                    + limits.storeKind().value() + ": an S3 store reads the first segment of the path it gets as the bucket,"
                    + " so behind '" + path + "' every bucket a client names would be a key in another one)");
        }
    }

    /**
     * The path {@code --upstream} adds is read as it is written: the refusals that depend on how
     * deep a path reaches (a bucket under {@code http}) and the naming recorded with the fences take
     * it segment by segment. A store that resolves {@code /x/..}, an empty segment, a path parameter
     * or an escaped separator would reach another depth or folder than the one the gateway reads.
     */
    static void requirePlainPathSegments(URI upstream) {
        String path = upstream.getRawPath() == null ? "" : upstream.getRawPath();
        String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        if (trimmed.isEmpty()) {
            return;
        }
        for (String segment : trimmed.substring(1).split("/", -1)) {
            String decoded = decodedSegment(segment);
            if (decoded == null || decoded.isEmpty() || decoded.equals(".") || decoded.equals("..")
                    || decoded.chars().anyMatch(c -> c == '/' || c == '\\' || c == ';' || c < 0x20 || c == 0x7f)) {
                throw new IllegalArgumentException("--upstream: '" + upstream + "' (expected a path of plain segments: no"
                        + " empty, '.' or '..' segment, no ';', '\\', control character or escaped '/' in any spelling, and"
                        + " escapes of UTF-8 only; segment '" + segment + "' is not one, and a store that resolves it would reach"
                        + " another folder than the one the gateway fences)");
            }
        }
    }

    /** The segment with its escapes decoded (the URI parse refused incomplete ones; bytes that are no UTF-8 read as U+FFFD). */
    private static String decodedSegment(String rawSegment) {
        String decoded = URI.create("http://h/" + rawSegment).getPath().substring(1);
        return decoded.indexOf('\uFFFD') >= 0 ? null : decoded;
    }

    public HostPort upstreamAddress() {
        return addressOf(upstream);
    }

    private static HostPort addressOf(URI upstream) {
        int port = upstream.getPort() >= 0 ? upstream.getPort() : upstreamTls(upstream) ? 443 : 80;
        String host = upstream.getHost();
        // URI keeps the brackets of an IPv6 literal; the socket address wants it bare.
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new HostPort(host, port);
    }

    /** Whether the store is reached over TLS ({@code https}). */
    public boolean upstreamTls() {
        return upstreamTls(upstream);
    }

    private static boolean upstreamTls(URI upstream) {
        return "https".equalsIgnoreCase(upstream.getScheme());
    }

    /** The {@code Host} the store is reached by, as {@code --upstream} names it: its host, and its port if it gives one. */
    public String upstreamHost() {
        return upstream.getHost() + (upstream.getPort() < 0 ? "" : ":" + upstream.getPort());
    }

    /** The path the store's base URL adds in front of every request target, without a final '/'. */
    public String upstreamPathPrefix() {
        String path = upstream.getRawPath() == null ? "" : upstream.getRawPath();
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
