package dev.fencegate.proxy;

import dev.fencegate.config.HostPort;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Optional;

/**
 * One connection attempt to the store at start, so that an operator hears at once that requests
 * will get 502, rather than from the first client. Only a warning: the store may come up later,
 * and each request connects anew.
 */
public final class StoreProbe {

    private StoreProbe() {
    }

    /** Why the store cannot be reached now, or empty. Blocks up to {@code timeout}: call it at start only. */
    public static Optional<String> problem(HostPort store, Duration timeout) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(store.host(), store.port()), (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            return Optional.empty();
        } catch (UnknownHostException e) {
            // Its message is the bare name, which alone reads as if the host were down.
            return Optional.of("unknown host " + (e.getMessage() == null ? store.host() : e.getMessage()));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.of(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
    }
}
