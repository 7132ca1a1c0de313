package dev.fencegate.loadtest.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Loopback ports that were free at start; all held open together, so they are distinct. */
final class FreePorts {
    private final int[] ports;
    private int next;

    private FreePorts(int[] ports) {
        this.ports = ports;
    }

    static FreePorts reserve(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return new FreePorts(ports);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find " + count + " free loopback ports", e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // The port is only a number to us; a close failure changes nothing.
                }
            }
        }
    }

    int take() {
        if (next == ports.length) {
            throw new IllegalStateException("all " + ports.length + " reserved ports are taken");
        }
        return ports[next++];
    }
}
