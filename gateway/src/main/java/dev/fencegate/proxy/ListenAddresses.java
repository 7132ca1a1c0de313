package dev.fencegate.proxy;

import dev.fencegate.config.HostPort;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * The ports the gateway listens on, tried before anything else starts: a start that fails because
 * another process holds one then leaves the fence database as it was (no schema migrated, no naming
 * recorded for settings that never served), and says which setting to change.
 */
public final class ListenAddresses {

    private ListenAddresses() {
    }

    /**
     * Binds {@code bootstrap} to {@code address}. A port another process took since
     * {@link #requireFree} found it free is a bad setting named as that one is, not a stack trace.
     *
     * @throws IllegalArgumentException naming {@code setting} when the address cannot be listened on
     */
    static Channel bind(ServerBootstrap bootstrap, String setting, HostPort address) throws InterruptedException {
        ChannelFuture bound = bootstrap.bind(address.host(), address.port()).await();
        if (!bound.isSuccess()) {
            throw new IllegalArgumentException(setting + ": " + address + " (expected an address this process can listen on: "
                    + bound.cause().getMessage() + "; another process took it while this gateway started)", bound.cause());
        }
        return bound.channel();
    }

    /**
     * Binds the data and admin addresses together, as the servers will, then lets them go: one
     * port spelt two ways (127.0.0.1 and localhost) is found as surely as another process's.
     *
     * @throws IllegalArgumentException naming the setting whose address cannot be listened on now
     */
    public static void requireFree(HostPort data, HostPort admin) {
        try (ServerSocket first = probe(data, "--listen", null); ServerSocket second = probe(admin, "--admin-listen", data)) {
            // Both bound at once: nothing more to learn.
        } catch (IOException e) {
            // Closing a probe socket: nothing was learnt from it.
        }
    }

    /** @param bound an address bound just before, which may be the same port under another name, or null */
    private static ServerSocket probe(HostPort address, String setting, HostPort bound) {
        if (address.port() == 0) {
            return null;
        }
        ServerSocket probe = null;
        try {
            probe = new ServerSocket();
            // As the servers bind: an address whose last connections are still closing is free.
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(address.host(), address.port()));
            return probe;
        } catch (IOException e) {
            closeQuietly(probe);
            if (bound != null && bound.port() == address.port()) {
                throw new IllegalArgumentException(setting + ": " + address + " (expected a port other than --listen " + bound
                        + "'s, which names the same port of this host: " + e.getMessage() + ")");
            }
            throw new IllegalArgumentException(setting + ": " + address + " (expected an address this process can listen on: "
                    + e.getMessage() + ")");
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // It never listened.
            }
        }
    }
}
