package dev.fencegate.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLHandshakeException;

/**
 * One connection attempt to the store at start, so that an operator hears at once that requests
 * will get 502, rather than from the first client. It connects as requests do, name lookup
 * included. Only a warning: the store may come up later, and each request connects anew.
 */
final class StoreProbe {

    private static final Pattern NETTY_WORDING = Pattern.compile("(?:\\w+\\(\\.\\.\\) failed with error\\(-?\\d+\\): )?(.*?)(?:: \\S*/\\S+)?");

    private StoreProbe() {
    }

    /**
     * Why the store cannot be reached now, or empty. Blocks up to about {@code timeout}: call it at
     * start only, never on an event loop.
     */
    static Optional<String> problem(StoreConnections connections, EventLoop loop, Duration timeout) {
        ChannelFuture connected;
        try {
            connected = loop.submit(() -> connections.connect(loop)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            // The connect's own deadline is the timeout; a little more lets it say why it failed.
            connected.await(timeout.toMillis() + 1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        } catch (ExecutionException | TimeoutException e) {
            return Optional.of("no connection attempt within " + timeout.toMillis() + " ms");
        }
        if (connected.isSuccess()) {
            Channel channel = connected.channel();
            channel.close();
            return Optional.empty();
        }
        if (!connected.isDone()) {
            connected.channel().close();
            return Optional.of("no connection within " + timeout.toMillis() + " ms");
        }
        Throwable cause = connected.cause();
        if (cause instanceof UnknownHostException) {
            // Its message alone can read as if the host were merely down.
            return Optional.of("unknown host " + connections.store().host() + " (" + String.valueOf(cause.getMessage()).strip() + ")");
        }
        return Optional.of(systemWords(cause));
    }

    /**
     * Netty's words for a failed connect, without what only Netty adds: the native transport's call
     * ({@code finishConnect(..) failed with error(-111): }) and the address after the system's words
     * ({@code : /127.0.0.1:9000}, given with the store already). {@code Connection refused}, as the
     * JDK's socket says it.
     */
    static String systemWords(Throwable cause) {
        String message = cause.getMessage();
        if (cause instanceof SSLHandshakeException) {
            // The JDK's words name the check that failed, not the settings that decide it.
            return "TLS handshake failed: " + message + " (the store's certificate must chain to --upstream-ca, or to the JDK's"
                    + " trusted roots without it, and name the --upstream host)";
        }
        if (message == null) {
            return cause.getClass().getSimpleName();
        }
        Matcher words = NETTY_WORDING.matcher(message);
        return words.matches() && !words.group(1).isBlank() ? words.group(1) : message;
    }
}
