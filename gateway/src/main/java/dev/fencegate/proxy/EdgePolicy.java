package dev.fencegate.proxy;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.http.VirtualHosts;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;

/**
 * What the client-facing side enforces beyond the codec's own limits. The constants below stand
 * in for settings the config does not have yet; each names the setting it will become.
 *
 * @param maxBodySize       largest request body relayed, 0 for no limit (413 above it)
 * @param maxBufferedBody   largest body the gateway holds whole: DeleteObjects' XML (413 above it)
 * @param maxHeaderCount    most header fields in a request head (431 above it)
 * @param trustedProxies    clients whose Forwarded / X-Forwarded-* / X-Real-IP headers pass on
 * @param virtualHosts      base domains under which a Host names a bucket; such writes are refused
 */
record EdgePolicy(long maxBodySize, int maxBufferedBody, int maxHeaderCount, Set<InetAddress> trustedProxies,
                  VirtualHosts virtualHosts) {

    /** Setting max-buffered-body: S3 caps DeleteObjects at 1000 keys of at most 1024 bytes each. */
    static final int MAX_BUFFERED_BODY = 1024 * 1024;
    /** Setting max-header-count. */
    static final int MAX_HEADER_COUNT = 100;
    /** Setting trusted-proxies: none, so forwarding headers from clients are always dropped. */
    static final Set<InetAddress> TRUSTED_PROXIES = Set.of();
    /** Setting virtual-host-domains: the base domain local S3 stores and SDKs use for virtual-host style. */
    static final List<String> VIRTUAL_HOST_DOMAINS = List.of("localhost");

    static EdgePolicy of(GatewayConfig config) {
        long maxBody = config.limits().maxBodySize();
        int buffered = maxBody > 0 && maxBody < MAX_BUFFERED_BODY ? (int) maxBody : MAX_BUFFERED_BODY;
        return new EdgePolicy(maxBody, buffered, MAX_HEADER_COUNT, TRUSTED_PROXIES, new VirtualHosts(VIRTUAL_HOST_DOMAINS));
    }
}
