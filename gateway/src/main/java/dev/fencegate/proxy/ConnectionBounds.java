package dev.fencegate.proxy;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.Limits;
import java.time.Duration;

/**
 * What bounds a client connection on either port: silence, a head that will not finish, and how
 * many may be open at once.
 *
 * @param idleTimeout    longest silence from a client (408 and a close)
 * @param headTimeout    longest a request head may take to arrive whole (408 and a close)
 * @param maxConnections most connections open at once; more are closed on accept
 */
public record ConnectionBounds(Duration idleTimeout, Duration headTimeout, int maxConnections) {

    public static ConnectionBounds of(GatewayConfig config) {
        return new ConnectionBounds(config.clientIdleTimeout(), config.limits().headTimeout(), config.limits().maxConnections());
    }

    /** The bounds a gateway has with its defaults. */
    public static ConnectionBounds defaults() {
        Limits limits = Limits.defaults();
        return new ConnectionBounds(Duration.ofSeconds(30), limits.headTimeout(), limits.maxConnections());
    }
}
