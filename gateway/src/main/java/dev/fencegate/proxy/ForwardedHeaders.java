package dev.fencegate.proxy;

import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Set;

/**
 * Headers that claim where a request came from. A client could forge them to pass the store's
 * address-based rules or poison its logs, so they pass on only from a trusted proxy. Host is
 * not one of them: it is signed by S3 clients and passes unchanged.
 */
final class ForwardedHeaders {

    private static final List<String> NAMES = List.of(
            "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-real-ip");

    private ForwardedHeaders() {
    }

    static void dropUnlessTrusted(HttpHeaders headers, SocketAddress client, Set<InetAddress> trusted) {
        if (client instanceof InetSocketAddress address && trusted.contains(address.getAddress())) {
            return;
        }
        for (String name : NAMES) {
            headers.remove(name);
        }
    }
}
