package dev.fencegate.demo;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP/1.1 object store held in memory, standing in for the durable store behind the gateway.
 * Objects are keyed by request path without the query string. PUT and POST store the body and answer
 * 201 (new path) or 204 (replaced); DELETE answers 204, or 404 when nothing was there; GET and HEAD
 * answer 200 with the stored length and Content-Type, or 404; other methods 405. Each write that
 * changes the map is appended to {@link #applied()}, so a test can tell which writes got through.
 */
public final class MemoryObjectStore implements AutoCloseable {

    /**
     * @param port          0 for any free port
     * @param discard       the load test's do-nothing store: bodies are dropped as they stream in, nothing
     *                      is kept or recorded, writes answer 201 (DELETE 204) and reads 404
     * @param writeDelayMin every write (PUT, POST, DELETE) waits a uniformly random delay in
     *                      [writeDelayMin, writeDelayMax] before it is applied and answered, in both modes
     * @param maxBodyBytes  the largest body kept (413 above it); discard mode has no limit
     */
    public record Options(String host, int port, boolean discard, Duration writeDelayMin, Duration writeDelayMax,
                          int maxBodyBytes) {

        public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

        public Options {
            require(host != null && !host.isBlank(), "host: '" + host + "' (expected: a host name or address)");
            require(port >= 0 && port <= 65_535, "port: " + port + " (expected: 0-65535, 0 for any free port)");
            require(writeDelayMin != null && !writeDelayMin.isNegative(),
                    "writeDelayMin: " + writeDelayMin + " (expected: zero or more)");
            require(writeDelayMax != null && writeDelayMax.compareTo(writeDelayMin) >= 0,
                    "writeDelayMax: " + writeDelayMax + " (expected: at least writeDelayMin, " + writeDelayMin + ")");
            require(maxBodyBytes > 0, "maxBodyBytes: " + maxBodyBytes + " (expected: more than 0)");
        }

        public Options(String host, int port, boolean discard, Duration writeDelayMin, Duration writeDelayMax) {
            this(host, port, discard, writeDelayMin, writeDelayMax, DEFAULT_MAX_BODY_BYTES);
        }

        /** Loopback, any free port, records everything, answers at once. */
        public static Options loopback() {
            return new Options("127.0.0.1", 0, false, Duration.ZERO, Duration.ZERO);
        }

        public Options withDiscard(boolean discard) {
            return new Options(host, port, discard, writeDelayMin, writeDelayMax, maxBodyBytes);
        }

        public Options withWriteDelay(Duration min, Duration max) {
            return new Options(host, port, discard, min, max, maxBodyBytes);
        }

        private static void require(boolean valid, String message) {
            if (!valid) {
                throw new IllegalArgumentException(message);
            }
        }
    }

    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final StoreLedger ledger;

    private MemoryObjectStore(EventLoopGroup group, Channel serverChannel, StoreLedger ledger) {
        this.group = group;
        this.serverChannel = serverChannel;
        this.ledger = ledger;
    }

    /** Binds and returns once the store accepts connections. */
    public static MemoryObjectStore start(Options options) {
        return start(options, WriteDelays.uniform(options.writeDelayMin(), options.writeDelayMax()));
    }

    static MemoryObjectStore start(Options options, WriteDelays delays) {
        StoreLedger ledger = new StoreLedger();
        // Daemon threads: a store a test forgot to close must not keep the JVM alive.
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                0, new DefaultThreadFactory("memory-object-store", true), NioIoHandler.newFactory());
        ChannelFuture bound = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new StoreChannelInitializer(options, ledger, new WriteHold(delays)))
                .bind(options.host(), options.port())
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw new IllegalStateException("memory object store cannot listen on " + options.host() + ":"
                    + options.port() + " (" + bound.cause().getMessage() + ")", bound.cause());
        }
        return new MemoryObjectStore(group, bound.channel(), ledger);
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Every applied write, oldest first; a snapshot. */
    public List<AppliedWrite> applied() {
        return ledger.applied();
    }

    public List<AppliedWrite> appliedTo(String path) {
        return ledger.applied().stream().filter(write -> write.path().equals(path)).toList();
    }

    /** A copy of the bytes stored at {@code path} (no query string). */
    public Optional<byte[]> object(String path) {
        return ledger.get(path).map(object -> object.body().clone());
    }

    /** Requests received, reads included, counted when their headers arrive. */
    public int requestCount() {
        return ledger.requestCount();
    }

    public int connectionsAccepted() {
        return ledger.connectionsAccepted();
    }

    /** Forgets objects, apply log and request count; sequence numbers and the connection count go on. */
    public void clear() {
        ledger.clear();
    }

    /** Blocks until {@link #close()} runs, e.g. from a shutdown hook; for a command that only serves. */
    public void awaitClosed() throws InterruptedException {
        serverChannel.closeFuture().await();
    }

    /** Stops accepting, closes open connections and drops writes still held in their delay. */
    @Override
    public void close() {
        serverChannel.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
