package dev.fencegate.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A store on raw sockets that answers each request head with literal bytes, modelled on
 * Python's http.server: it reads a body only when told to, so an unread body is parsed as the
 * next request, and it keeps the connection unless told to close it.
 * Every request head it parses is recorded with the number of the connection it came on.
 */
public final class LiteralStore implements AutoCloseable {

    /** One request head as the store parsed it, and the connection (numbered from 0) it came on. */
    public record Received(int connection, String requestLine) {
    }

    /** What the store does with one request head: answer with {@code bytes}, having read the body or not, then close or not. */
    public record Reply(String bytes, boolean readBody, boolean close) {

        /** Reads the body, answers, keeps the connection. */
        public static Reply of(String bytes) {
            return new Reply(bytes, true, false);
        }
    }

    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final Function<String, Reply> replies;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();

    public LiteralStore(Function<String, Reply> replies) throws IOException {
        this.replies = replies;
        Thread acceptor = new Thread(this::accept, "literal-store");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                int number = connections.getAndIncrement();
                Thread serving = new Thread(() -> serve(socket, number), "literal-store-" + number);
                serving.setDaemon(true);
                serving.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket socket, int number) {
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            String head;
            while ((head = readHead(in)) != null) {
                received.add(new Received(number, head.substring(0, head.indexOf("\r\n"))));
                Reply reply = replies.apply(head);
                if (reply.readBody()) {
                    in.readNBytes(contentLength(head));
                }
                out.write(reply.bytes().getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                if (reply.close()) {
                    return;
                }
            }
        } catch (IOException e) {
            // the gateway closed the connection
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            if (head.size() >= 4 && head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                return head.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-length")) {
                return Integer.parseInt(line.substring(colon + 1).trim());
            }
        }
        return 0;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
