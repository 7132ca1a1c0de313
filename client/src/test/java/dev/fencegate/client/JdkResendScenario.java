package dev.fencegate.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A write through {@link FencedHttpClient} in a JVM whose java.net.http read
 * {@code jdk.httpclient.enableAllMethodRetry} as true when it made its first request, though the
 * property was unset when the client was built. It runs in a JVM of its own (the JDK reads the
 * property once per JVM) and prints, one per line, the writes the store received and how
 * {@code send} ended: {@code FencedHttpClientTest} reads them.
 *
 * <p>The write is a PUT with a body or a DELETE without one, which java.net.http sends with no
 * body publisher at all. The store takes a connection, answers a read on it and keeps it open, so the write goes out
 * on that reused connection; the lease is lost while the write waits, and the store closes the
 * connection without an answer: the case in which the JDK sends a write again.
 */
final class JdkResendScenario {

    /** The property set, the JVM's first request made, the property cleared, then the client built. */
    static final String SET_AT_FIRST_REQUEST_THEN_CLEARED = "set-at-first-request-then-cleared";
    /** The client built, then the property set, then the JVM's first request made. */
    static final String SET_AFTER_THE_CLIENT_WAS_BUILT = "set-after-the-client-was-built";

    private final FakeTicker clock = new FakeTicker();
    private final Lease lease = new Lease("report", "worker-a", 7, Duration.ofSeconds(30));
    private final LeaseGuard guard = new LeaseGuard(lease, LeaseTiming.of(lease.ttl()), clock, clock.nanos());
    private final List<String> received = new CopyOnWriteArrayList<>();

    public static void main(String[] args) throws Exception {
        new JdkResendScenario().run(args[0], args[1]);
        System.exit(0);
    }

    /** Runs a write of {@code method}, PUT with a body or DELETE without one, after the property was set in {@code order}. */
    private void run(String order, String method) throws Exception {
        try (ServerSocket store = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread accepting = new Thread(() -> accept(store), "store");
            accepting.setDaemon(true);
            accepting.start();
            String base = "http://127.0.0.1:" + store.getLocalPort();
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(1)).build();
            HttpRequest read = HttpRequest.newBuilder(URI.create(base + "/b/listing")).GET().build();
            FencedHttpClient fenced;
            if (order.equals(SET_AT_FIRST_REQUEST_THEN_CLEARED)) {
                System.setProperty(FencedHttpClient.RETRY_ALL_METHODS, "true");
                http.send(read, HttpResponse.BodyHandlers.discarding());
                System.clearProperty(FencedHttpClient.RETRY_ALL_METHODS);
                fenced = new FencedHttpClient(http, WriteFencing.of(guard));
            } else if (order.equals(SET_AFTER_THE_CLIENT_WAS_BUILT)) {
                fenced = new FencedHttpClient(http, WriteFencing.of(guard));
                System.setProperty(FencedHttpClient.RETRY_ALL_METHODS, "true");
                http.send(read, HttpResponse.BodyHandlers.discarding());
            } else {
                throw new IllegalArgumentException("order: " + order + " (expected " + SET_AT_FIRST_REQUEST_THEN_CLEARED
                        + " or " + SET_AFTER_THE_CLIENT_WAS_BUILT + ")");
            }
            String outcome;
            try {
                HttpRequest.Builder write = HttpRequest.newBuilder(URI.create(base + "/b/report.csv"));
                if (method.equals("PUT")) {
                    write.PUT(HttpRequest.BodyPublishers.ofString("x"));
                } else if (method.equals("DELETE")) {
                    write.DELETE();
                } else {
                    throw new IllegalArgumentException("method: " + method + " (expected PUT or DELETE)");
                }
                HttpResponse<String> answer = fenced.send(write.build(), HttpResponse.BodyHandlers.ofString());
                outcome = "returned " + answer.statusCode();
            } catch (IOException | RuntimeException e) {
                outcome = "threw " + e;
            }
            for (String write : received) {
                System.out.println("received " + write);
            }
            System.out.println("send " + outcome);
        }
    }

    private void accept(ServerSocket store) {
        try {
            while (true) {
                Socket connection = store.accept();
                new Thread(() -> serve(connection), "store-connection").start();
            }
        } catch (IOException e) {
            // Closed at the end of the run.
        }
    }

    private void serve(Socket connection) {
        try (connection) {
            BufferedReader in = new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.ISO_8859_1));
            OutputStream out = connection.getOutputStream();
            for (String first = in.readLine(); first != null; first = in.readLine()) {
                long length = 0;
                String token = null;
                for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                    String lower = line.toLowerCase(Locale.ROOT);
                    if (lower.startsWith("content-length:")) {
                        length = Long.parseLong(lower.substring("content-length:".length()).trim());
                    }
                    if (lower.startsWith("fencing-token:")) {
                        token = line.substring("fencing-token:".length()).trim();
                    }
                }
                in.skip(length);
                String method = first.split(" ")[0];
                if (WriteFencing.isWrite(method)) {
                    received.add(method + " token=" + token + (guard.stillHeld() ? " under the lease" : " after the lease was lost"));
                    if (received.size() == 1) {
                        guard.trip("the lease store refused the renewal (while the write waited for its answer)");
                        return; // closes the connection without an answer
                    }
                }
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
        } catch (IOException e) {
            // The client went away.
        }
    }
}
