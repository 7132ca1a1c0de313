package dev.fencegate.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A store that keeps the exact bytes of each request head it receives and answers 200, to see
 * precisely what the gateway forwards. Handles one connection at a time; bodies must be
 * Content-Length framed.
 */
public final class CapturingUpstream implements AutoCloseable {

    private final ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    private final BlockingQueue<String> heads = new LinkedBlockingQueue<>();
    private final Thread acceptor;

    public CapturingUpstream() throws IOException {
        acceptor = new Thread(this::serve, "capturing-upstream");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The next request head received (request line and headers), or null after the wait. */
    public String nextHead(long millis) throws InterruptedException {
        return heads.poll(millis, TimeUnit.MILLISECONDS);
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                InputStream in = socket.getInputStream();
                while (true) {
                    String head = readHead(in);
                    if (head == null) {
                        break;
                    }
                    heads.add(head);
                    in.readNBytes(contentLength(head));
                    socket.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
                    socket.getOutputStream().flush();
                }
            } catch (IOException e) {
                // closed by the test or the gateway
            }
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            String text = head.toString(StandardCharsets.ISO_8859_1);
            if (text.endsWith("\r\n\r\n")) {
                return text;
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
