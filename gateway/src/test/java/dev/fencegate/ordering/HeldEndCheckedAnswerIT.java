package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A CreateMultipartUpload with a body, behind a store that stopped reading: the request's end is
 * held for the store's socket to drain (see StalledEventLoopIT). The store answers before it reads
 * the rest, and the gateway keeps that answer until its upload id is recorded. When the socket
 * drains while the record is still waiting on the database, the held end must not complete the
 * exchange and drop the kept answer: the client gets its upload id once it is recorded.
 */
@ExtendWith(NoNettyLeaks.class)
class HeldEndCheckedAnswerIT {

    /** More than the kernel takes while the store does not read, less than the gateway buffers before it stops reading the client. */
    private static final int BODY_BYTES = 256 * 1024;
    private static final String UPLOAD_ID = "held-end-upload-1";

    @Test
    void anAnswerUnderItsCheckReachesTheClientWhenTheHeldRequestEndDrainsMeanwhile() throws Exception {
        DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema("held_end_answer"));
        try (AnsweringEarlyStore store = new AnsweringEarlyStore();
             Gateway gateway = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database,
                     Duration.ofSeconds(20)));
             Connection locker = DriverManager.getConnection(database.url(), database.user(), database.password());
             RawHttp worker = RawHttp.connect(gateway.port())) {
            worker.timeout(15_000);
            locker.setAutoCommit(false);
            try (Statement lock = locker.createStatement()) {
                // The upload id's record waits here (under the 2 s lock timeout) while the store drains.
                lock.execute("LOCK TABLE " + database.schema() + ".multipart_upload IN EXCLUSIVE MODE");
            }
            worker.send("POST /bucket/report.csv?uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: 5\r\nContent-Length: "
                    + BODY_BYTES + "\r\n\r\n" + "5".repeat(BODY_BYTES));
            // All but the last byte reached the store: the held end was due to go out then, the answer
            // being under its check still.
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.bodyBytesRead >= BODY_BYTES - 1);
            Thread.sleep(200);
            locker.commit();

            String answer = worker.readResponse();
            assertThat(RawHttp.status(answer)).as(answer).isEqualTo(200);
            assertThat(answer).contains("<UploadId>" + UPLOAD_ID + "</UploadId>");
            assertThat(store.bodyBytesRead).as("the end was held, and dropped once the store had answered").isEqualTo(BODY_BYTES - 1);
        }
    }

    /**
     * Reads a request's head, then nothing for a while; answers CreateMultipartUpload; then reads
     * the body until its end or the connection's. Its receive buffer is 16 KiB, so the gateway's
     * socket fills well before the body is in the kernel: with 64 KiB, the receive window Linux
     * grants on loopback (which follows the sizes of the segments it receives) could take all but a
     * few bytes of the body, and now and then all of it, leaving nothing to hold.
     */
    private static final class AnsweringEarlyStore implements AutoCloseable {

        static final int ANSWER_AFTER_MILLIS = 500;
        static final int DRAIN_AFTER_MILLIS = 300;

        private final ServerSocket server = new ServerSocket();
        volatile int bodyBytesRead;

        AnsweringEarlyStore() throws IOException {
            server.setReceiveBufferSize(16 * 1024);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread acceptor = new Thread(this::accept, "answering-early-store");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        /** Each connection on a thread of its own: the gateway's reachability probe at start is one too. */
        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    Thread connection = new Thread(() -> serve(socket), "answering-early-store-connection");
                    connection.setDaemon(true);
                    connection.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket connection) {
            try (Socket socket = connection) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                int contentLength = readHead(in);
                Thread.sleep(ANSWER_AFTER_MILLIS);
                String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><InitiateMultipartUploadResult><Bucket>bucket</Bucket>"
                        + "<Key>report.csv</Key><UploadId>" + UPLOAD_ID + "</UploadId></InitiateMultipartUploadResult>";
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: " + xml.length()
                        + "\r\n\r\n" + xml).getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                Thread.sleep(DRAIN_AFTER_MILLIS);
                byte[] buffer = new byte[16 * 1024];
                int read = 0;
                int n;
                while (read < contentLength && (n = in.read(buffer)) >= 0) {
                    read += n;
                    bodyBytesRead = read;
                }
            } catch (IOException | InterruptedException e) {
                // The gateway went away.
            }
        }

        /** Reads byte by byte, so nothing of the body is taken with the head. */
        private static int readHead(InputStream in) throws IOException {
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("closed during the head");
                }
                head.append((char) b);
            }
            for (String line : head.toString().split("\r\n")) {
                if (line.toLowerCase().startsWith("content-length:")) {
                    return Integer.parseInt(line.substring("content-length:".length()).strip());
                }
            }
            return 0;
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
