package dev.fencegate.nemesis;

import dev.fencegate.testing.RawHttp;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Writes as a worker sends them, and what the gateway answers; nothing here knows the gateway's insides. */
final class Wire {

    /** Answered with no status: the connection failed or was closed before an answer. */
    static final int NO_ANSWER = -1;

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private Wire() {
    }

    /** A complete PUT; its body is its id, so the store's apply log names it. */
    static int put(int port, String path, long token, String id) {
        return put(HTTP, port, path, token, id, 0);
    }

    /** A complete PUT the store holds {@code storeDelayMillis} before applying. */
    static int put(HttpClient http, int port, String path, long token, String id, int storeDelayMillis) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(30)).header("Fencing-Token", Long.toString(token)).header("X-Request-Id", id);
            if (storeDelayMillis > 0) {
                request.header("X-Store-Delay-Ms", Integer.toString(storeDelayMillis));
            }
            return http.send(request.PUT(HttpRequest.BodyPublishers.ofString(id)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return NO_ANSWER;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return NO_ANSWER;
        }
    }

    /** The status a raise ended with and how long it took, retries of 503 included. */
    record Landed(int status, Duration took, int attempts) {
    }

    /**
     * Sends a write again on each 503, as a worker following Retry-After does, until another
     * answer or {@code bound}; each attempt gets a fresh id.
     */
    static Landed putUntilAnswered(int port, String path, long token, String id, Duration bound) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + bound.toNanos();
        int attempts = 0;
        int status;
        do {
            attempts++;
            status = put(port, path, token, id + "." + attempts);
            if (status != 503 && status != NO_ANSWER) {
                break;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return new Landed(status, Duration.ofNanos(System.nanoTime() - start), attempts);
    }

    /** A PUT whose head is sent now and whose body follows when the test says: a slow or paused worker. */
    static final class LateBody implements AutoCloseable {

        private final RawHttp connection;
        private final String body;
        private String early;

        private LateBody(RawHttp connection, String body) {
            this.connection = connection;
            this.body = body;
        }

        static LateBody open(int port, String path, long token, String id) throws IOException {
            RawHttp connection = RawHttp.connect(port);
            connection.send("PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nFencing-Token: " + token
                    + "\r\nX-Request-Id: " + id + "\r\nContent-Length: " + id.length() + "\r\n\r\n");
            return new LateBody(connection, id);
        }

        /**
         * Sends the body, unless the gateway has already answered (it may give up on a write whose
         * admission ran out before the body comes): that answer is kept for {@link #response}.
         */
        void sendBody() {
            try {
                connection.timeout(100);
                early = connection.readResponse();
                return;
            } catch (SocketTimeoutException e) {
                // No answer yet: the gateway waits for the body, as it should.
            } catch (IOException e) {
                return;
            }
            try {
                connection.send(body);
            } catch (IOException e) {
                // Closed by the gateway meanwhile: what it answered, if anything, is read next.
            }
        }

        /** The status answered within {@code timeout}, or {@link #NO_ANSWER} if the connection closed or stayed silent. */
        int status(Duration timeout) {
            String response = response(timeout);
            return response.isEmpty() ? NO_ANSWER : RawHttp.status(response);
        }

        /** The whole answer within {@code timeout}, for messages; empty if none came. */
        String response(Duration timeout) {
            if (early != null) {
                return early;
            }
            try {
                connection.timeout((int) timeout.toMillis());
                return connection.readResponse();
            } catch (IOException e) {
                return "";
            }
        }

        @Override
        public void close() throws IOException {
            connection.close();
        }
    }
}
