package dev.fencegate.testing;

import dev.fencegate.config.DatabaseConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A loopback TCP relay to one target, which a test can cut: a network partition between a
 * gateway and its PostgreSQL. While cut, every relayed connection is closed and new ones are
 * accepted but never answered, as behind a firewall that drops packets.
 */
public final class TcpRelay implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    /** Both ends of every relayed connection, and the connections held silent while cut. */
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    /** While set, nothing is relayed and nothing is closed: a link gone silent, with no FIN and no RST. */
    private volatile boolean frozen;
    private volatile boolean closed;

    private TcpRelay(ServerSocket server, String targetHost, int targetPort) {
        this.server = server;
        this.targetHost = targetHost;
        this.targetPort = targetPort;
    }

    public static TcpRelay start(String targetHost, int targetPort) throws IOException {
        TcpRelay relay = new TcpRelay(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), targetHost, targetPort);
        Thread acceptor = new Thread(relay::accept, "tcp-relay-" + relay.port());
        acceptor.setDaemon(true);
        acceptor.start();
        return relay;
    }

    /** Relays a JDBC URL of the form {@code jdbc:postgresql://HOST:PORT/...}; the URL through the relay is {@link #jdbcUrl}. */
    public static TcpRelay toJdbc(String url) throws IOException {
        var matcher = java.util.regex.Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)/.*").matcher(url);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("not a jdbc:postgresql://HOST:PORT/... URL: " + url);
        }
        return start(matcher.group(1), Integer.parseInt(matcher.group(2)));
    }

    public String jdbcUrl(String url) {
        return url.replaceFirst("//[^:/]+:\\d+/", "//127.0.0.1:" + port() + "/");
    }

    public int port() {
        return server.getLocalPort();
    }

    /**
     * A data source whose first connection goes to {@code config}'s database through this relay,
     * with a socket timeout of {@code socketTimeoutSeconds}, and every later one to {@code rest}: a
     * listener's connection the test can silence while the pool's go on.
     */
    public DataSource firstConnectionThrough(DatabaseConfig config, int socketTimeoutSeconds, DataSource rest) {
        PGSimpleDataSource relayed = new PGSimpleDataSource();
        relayed.setURL(jdbcUrl(config.url()));
        relayed.setUser(config.user());
        relayed.setPassword(config.password());
        relayed.setSocketTimeout(socketTimeoutSeconds);
        AtomicInteger opened = new AtomicInteger();
        return (DataSource) Proxy.newProxyInstance(TcpRelay.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> method.getName().equals("getConnection") && opened.getAndIncrement() == 0
                        ? relayed.getConnection() : Proxies.invoke(method, rest, args));
    }

    /** Drops every relayed connection; new ones hang unanswered until {@link #restore()}. */
    public void cut() {
        cut = true;
        closeAll();
    }

    /** Connections are relayed again; those held silent while cut are closed, as a timed-out peer would see. */
    public void restore() {
        closeAll();
        cut = false;
    }

    public boolean isCut() {
        return cut;
    }

    /** Stops relaying without closing anything, as a peer that vanished or a partition that drops packets. */
    public void freeze() {
        frozen = true;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                open.add(client);
                if (!cut) {
                    relay(client);
                }
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void relay(Socket client) {
        Socket target;
        try {
            target = new Socket(targetHost, targetPort);
        } catch (IOException e) {
            quietly(client);
            return;
        }
        open.add(target);
        pump(client, target);
        pump(target, client);
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0 && !cut) {
                    while (frozen && !closed) {
                        Thread.sleep(50);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                // One side closed or was cut: the other follows.
            } finally {
                quietly(from);
                quietly(to);
            }
        }, "tcp-relay-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private void closeAll() {
        for (Socket socket : Set.copyOf(open)) {
            quietly(socket);
        }
    }

    private void quietly(Socket socket) {
        open.remove(socket);
        try {
            socket.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // Closing anyway.
        }
        closeAll();
    }
}
