package dev.fencegate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A link between a gateway and its store, relaying each connection with a small receive window
 * (64 KiB) towards the gateway: {@link #slow} reads what the gateway sends at a fixed rate, as a
 * slow network would; {@link #held} reads nothing of it until {@link #open}, as a store that
 * stopped reading would; {@link #late} takes it all at once but passes it on only at {@link #open},
 * as a link whose packets are delayed in flight (bytes on the wire reach the store, whatever the
 * gateway does after sending them). Answers go back at once; an end of input, or a reset, is passed
 * on as a half-close.
 */
public final class StoreLink implements AutoCloseable {

    private final ServerSocket server;
    private final int target;
    private final int bytesPerSecond;
    private final CountDownLatch opened;
    private final boolean late;
    private volatile long lastByteNanos = System.nanoTime();

    private StoreLink(ServerSocket server, int target, int bytesPerSecond, boolean held, boolean late) {
        this.server = server;
        this.target = target;
        this.bytesPerSecond = bytesPerSecond;
        this.opened = new CountDownLatch(held || late ? 1 : 0);
        this.late = late;
    }

    /** Passes on what the gateway sends at {@code bytesPerSecond}. */
    public static StoreLink slow(int targetPort, int bytesPerSecond) throws IOException {
        return start(targetPort, bytesPerSecond, false);
    }

    /** Passes on nothing the gateway sends until {@link #open}, then all of it at once. */
    public static StoreLink held(int targetPort) throws IOException {
        return start(targetPort, 0, true, false);
    }

    /** Takes what the gateway sends at once, and passes it on only at {@link #open}. */
    public static StoreLink late(int targetPort) throws IOException {
        return start(targetPort, 0, false, true);
    }

    private static StoreLink start(int targetPort, int bytesPerSecond, boolean held) throws IOException {
        return start(targetPort, bytesPerSecond, held, false);
    }

    private static StoreLink start(int targetPort, int bytesPerSecond, boolean held, boolean late) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReceiveBufferSize(64 * 1024);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        StoreLink link = new StoreLink(server, targetPort, bytesPerSecond, held, late);
        Thread acceptor = new Thread(link::accept, "store-link");
        acceptor.setDaemon(true);
        acceptor.start();
        return link;
    }

    public int port() {
        return server.getLocalPort();
    }

    public void open() {
        opened.countDown();
    }

    /** Nothing passed on towards the store for a second. */
    public boolean idle() {
        return System.nanoTime() - lastByteNanos > Duration.ofSeconds(1).toNanos();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket gateway = server.accept();
                Socket store = new Socket(InetAddress.getLoopbackAddress(), target);
                if (late) {
                    delay(gateway, store);
                } else {
                    pump(gateway, store, true);
                }
                pump(store, gateway, false);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean towardsStore) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                if (towardsStore) {
                    opened.await();
                }
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                    if (towardsStore) {
                        lastByteNanos = System.nanoTime();
                        if (bytesPerSecond > 0) {
                            Thread.sleep(n * 1000L / bytesPerSecond);
                        }
                    }
                }
                to.shutdownOutput();
            } catch (IOException | InterruptedException e) {
                // One side went away.
            }
        }, "store-link-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** Reads the gateway's bytes as they come and writes them to the store once the link is opened. */
    private void delay(Socket from, Socket to) {
        java.util.concurrent.BlockingQueue<byte[]> inFlight = new java.util.concurrent.LinkedBlockingQueue<>();
        byte[] end = new byte[0];
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    inFlight.add(java.util.Arrays.copyOf(buffer, n));
                }
            } catch (IOException e) {
                // Reset: what was read is on the wire already.
            }
            inFlight.add(end);
        }, "store-link-late-reader");
        Thread writer = new Thread(() -> {
            try {
                opened.await();
                OutputStream out = to.getOutputStream();
                for (byte[] bytes = inFlight.take(); bytes != end; bytes = inFlight.take()) {
                    out.write(bytes);
                    out.flush();
                    lastByteNanos = System.nanoTime();
                }
                to.shutdownOutput();
            } catch (IOException | InterruptedException e) {
                // The store went away.
            }
        }, "store-link-late-writer");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
