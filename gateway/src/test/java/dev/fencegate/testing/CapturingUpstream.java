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
    private final BlockingQueue<String> bodies = new LinkedBlockingQueue<>();
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

    /** The body of the next request received as the store read it (a chunked one with its chunk framing and trailer section), or null after the wait. */
    public String nextBody(long millis) throws InterruptedException {
        return bodies.poll(millis, TimeUnit.MILLISECONDS);
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
                    bodies.add(head.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")
                            ? readChunked(in) : new String(in.readNBytes(contentLength(head)), StandardCharsets.ISO_8859_1));
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

    private static String readChunked(InputStream in) throws IOException {
        StringBuilder body = new StringBuilder();
        while (true) {
            String sizeLine = readLine(in);
            body.append(sizeLine);
            int size = Integer.parseInt(sizeLine.strip().split(";", 2)[0], 16);
            if (size == 0) {
                String trailer;
                do {
                    trailer = readLine(in);
                    body.append(trailer);
                } while (!trailer.equals("\r\n"));
                return body.toString();
            }
            body.append(new String(in.readNBytes(size + 2), StandardCharsets.ISO_8859_1));
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            line.append((char) b);
            if (b == '\n') {
                return line.toString();
            }
        }
        throw new IOException("the request ended inside its chunked body");
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
