package dev.fencegate.demo;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Just enough of the Redis protocol (RESP2) for the demo's lease store: commands in, one reply out. */
final class RespClient implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RespClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Sends one command; returns a string, a Long, or null; a Redis error becomes an IOException. */
    Object call(String... words) throws IOException {
        ByteArrayOutputStream command = new ByteArrayOutputStream();
        command.writeBytes(("*" + words.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String word : words) {
            byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
            command.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            command.writeBytes(bytes);
            command.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write(command.toByteArray());
        out.flush();
        return reply();
    }

    private Object reply() throws IOException {
        int type = in.read();
        String line = line();
        return switch (type) {
            case '+' -> line;
            case '-' -> throw new IOException("redis: " + line);
            case ':' -> Long.parseLong(line);
            case '$' -> {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    yield null;
                }
                String value = new String(in.readNBytes(length), StandardCharsets.UTF_8);
                line();
                yield value;
            }
            default -> throw new IOException("unexpected redis reply type " + (char) type);
        };
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("redis closed the connection");
            }
            line.append((char) c);
        }
        in.read();
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
