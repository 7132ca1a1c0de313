package dev.fencegate.proxy;

import dev.fencegate.config.HostPort;
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

    /** @throws IllegalArgumentException naming {@code setting} when {@code address} cannot be listened on now */
    public static void requireFree(HostPort address, String setting) {
        if (address.port() == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            // As the servers bind: an address whose last connections are still closing is free.
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(address.host(), address.port()));
        } catch (IOException e) {
            throw new IllegalArgumentException(setting + ": " + address + " (expected an address this process can listen on: "
                    + e.getMessage() + ")");
        }
    }
}
