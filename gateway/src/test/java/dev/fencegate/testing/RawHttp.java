package dev.fencegate.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** A raw socket to the gateway: exact bytes out, exact bytes back, and whether it was closed. */
public final class RawHttp implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RawHttp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    public static RawHttp connect(int port) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5_000);
        return new RawHttp(socket);
    }

    public RawHttp send(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return this;
    }

    /** Reads one response head and, if it has a Content-Length, its body. */
    public String readResponse() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed after " + head.size() + " bytes: " + head.toString(StandardCharsets.ISO_8859_1));
            }
            head.write(b);
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        int length = contentLength(text);
        return text + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
    }

    /** Reads one response head only, as for an answer to HEAD. */
    public String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed after " + head.size() + " bytes: " + head.toString(StandardCharsets.ISO_8859_1));
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** Reads one response head and its body, of Content-Length or chunked (returned decoded, without trailers). */
    public String readResponseWithBody() throws IOException {
        String head = readHead();
        if (!head.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")) {
            return head + new String(in.readNBytes(contentLength(head)), StandardCharsets.ISO_8859_1);
        }
        StringBuilder body = new StringBuilder();
        while (true) {
            String sizeLine = readLine();
            int size = Integer.parseInt(sizeLine.split(";", 2)[0].trim(), 16);
            if (size == 0) {
                while (!readLine().isEmpty()) {
                    // trailers
                }
                return head + body;
            }
            body.append(new String(in.readNBytes(size), StandardCharsets.ISO_8859_1));
            readLine();
        }
    }

    /** Reads everything the peer sends until it closes the connection. */
    public String readToClose() throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            line.write(b);
        }
        return line.toString(StandardCharsets.ISO_8859_1).replace("\r", "");
    }

    /** True when the peer closed the connection within the socket timeout (and sent nothing more). */
    public boolean closedByPeer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    public void timeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
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

    public static int status(String response) {
        return Integer.parseInt(response.substring(9, 12));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
