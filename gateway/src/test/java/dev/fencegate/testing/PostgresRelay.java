package dev.fencegate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of PostgreSQL that a test can cut: every connection through it is closed
 * and new ones are refused, as when a gateway loses its network path to the database.
 */
public final class PostgresRelay implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean cut;

    private PostgresRelay(ServerSocket server, int targetPort) {
        this.server = server;
        this.targetPort = targetPort;
    }

    public static PostgresRelay start(int targetPort) throws IOException {
        PostgresRelay relay = new PostgresRelay(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), targetPort);
        Thread acceptor = new Thread(relay::accept, "postgres-relay");
        acceptor.setDaemon(true);
        acceptor.start();
        return relay;
    }

    public int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (cut) {
                    client.close();
                    continue;
                }
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // Closed, or the database refused: the client sees its connection fail.
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // One side went away.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "postgres-relay-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** Closes every connection through the relay and refuses new ones. */
    public void cut() {
        cut = true;
        sockets.forEach(PostgresRelay::closeQuietly);
        sockets.clear();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    @Override
    public void close() {
        cut();
        try {
            server.close();
        } catch (IOException e) {
            // Already closed.
        }
    }
}
