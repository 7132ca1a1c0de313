package dev.fencegate.proxy;

import dev.fencegate.config.GatewayConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the client-facing side enforces beyond the codec's own limits, from the configured limits.
 *
 * @param maxBodySize       largest request body relayed, 0 for no limit (413 above it)
 * @param maxBufferedBody   largest body the gateway holds whole: DeleteObjects' XML (413 above it)
 * @param maxHeaderCount    most header fields in a request head (431 above it)
 * @param trustedProxies    clients whose Forwarded / X-Forwarded-* / X-Real-IP headers pass on
 * @param bodyBudget        the bytes of such bodies held at once, over every connection (503 above it)
 */
record EdgePolicy(long maxBodySize, int maxBufferedBody, int maxHeaderCount, Set<InetAddress> trustedProxies,
                  BodyBudget bodyBudget) {

    /**
     * The largest DeleteObjects S3 takes: 1000 keys of up to 1024 bytes, each byte at most 6 once
     * escaped as XML ({@code &quot;}), with room for the other fields of each {@code <Object>}.
     * SDKs escape quotes and apostrophes, so a batch of long keys passes 1 MiB.
     */
    static final int MAX_BUFFERED_BODY = 8 * 1024 * 1024;

    EdgePolicy(long maxBodySize, int maxBufferedBody, int maxHeaderCount, Set<InetAddress> trustedProxies) {
        this(maxBodySize, maxBufferedBody, maxHeaderCount, trustedProxies, BodyBudget.ofNettyMemory(maxBufferedBody));
    }

    static EdgePolicy of(GatewayConfig config) {
        long maxBody = config.limits().maxBodySize();
        int buffered = maxBody > 0 && maxBody < MAX_BUFFERED_BODY ? (int) maxBody : MAX_BUFFERED_BODY;
        return new EdgePolicy(maxBody, buffered, config.limits().maxHeaderCount(),
                addresses(config.limits().trustedProxyList()));
    }

    private static Set<InetAddress> addresses(List<String> literals) {
        Set<InetAddress> addresses = new HashSet<>();
        for (String literal : literals) {
            if (!literal.matches("[0-9a-fA-F:.]+")) {
                throw new IllegalArgumentException("--trusted-proxies: '" + literal + "' (expected an IP address)");
            }
            try {
                addresses.add(InetAddress.getByName(literal));
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("--trusted-proxies: '" + literal + "' (expected an IP address)", e);
            }
        }
        return Set.copyOf(addresses);
    }
}
