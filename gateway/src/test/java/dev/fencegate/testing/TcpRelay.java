package dev.fencegate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A TCP relay on loopback to a server, which a test can cut: as if the server died. */
public final class TcpRelay implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private TcpRelay(ServerSocket server, String host, int port) {
        this.server = server;
        Thread acceptor = new Thread(() -> accept(host, port), "tcp-relay-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public static TcpRelay to(String host, int port) throws IOException {
        return new TcpRelay(new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress()), host, port);
    }

    public int port() {
        return server.getLocalPort();
    }

    private void accept(String host, int port) {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket();
                target.connect(new InetSocketAddress(host, port), 2_000);
                sockets.add(client);
                sockets.add(target);
                pump(client, target);
                pump(target, client);
            } catch (IOException e) {
                // closed, or the target refused: the client sees its connection dropped
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // cut
            } finally {
                close(from);
                close(to);
            }
        }, "tcp-relay-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops accepting and cuts every relayed connection: new connections are refused. */
    @Override
    public void close() {
        close(server);
        sockets.forEach(TcpRelay::close);
    }

    private static void close(java.io.Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
