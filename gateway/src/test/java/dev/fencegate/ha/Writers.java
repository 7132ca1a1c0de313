package dev.fencegate.ha;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Workers writing through a gateway at a steady pace, each to resources of its own under a prefix
 * the test can change, with a token that rises on every write: so no answer but 2xx or 503 is
 * expected, and every 2xx raised its resource's fence. Every write and its answer is kept.
 */
final class Writers implements AutoCloseable {

    /** Answered with no status: the connection failed or timed out. */
    static final int NO_ANSWER = -1;
    static final int RESOURCES_PER_WRITER = 8;
    private static final Duration PACE = Duration.ofMillis(20);

    /** One write as its worker saw it; times are {@link System#nanoTime()}. */
    record Write(String id, String resource, long token, int status, boolean retryAfter, long sentNanos, long answeredNanos) {

        boolean acknowledged() {
            return status / 100 == 2;
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final int port;
    private final Queue<Write> writes = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile String prefix;
    private volatile boolean running = true;

    private Writers(int port, String prefix) {
        this.port = port;
        this.prefix = prefix;
    }

    /** Starts {@code count} workers writing under {@code prefix}. */
    static Writers start(int gatewayPort, int count, String prefix) {
        Writers writers = new Writers(gatewayPort, prefix);
        for (int i = 0; i < count; i++) {
            int worker = i;
            Thread thread = new Thread(() -> writers.write(worker), "writer-" + worker);
            thread.setDaemon(true);
            writers.threads.add(thread);
            thread.start();
        }
        return writers;
    }

    /** From the next write on, every worker writes to resources under {@code prefix}. */
    void writeUnder(String prefix) {
        this.prefix = prefix;
    }

    /** The writes answered so far. */
    List<Write> writes() {
        return List.copyOf(writes);
    }

    long acknowledged() {
        return writes.stream().filter(Write::acknowledged).count();
    }

    /** Whether a write sent after {@code nanos} was acknowledged. */
    boolean acknowledgedAfter(long nanos) {
        return writes.stream().anyMatch(write -> write.acknowledged() && write.sentNanos() > nanos);
    }

    /**
     * One write of {@code resource} with {@code token} through the gateway on {@code port}; its body is its id.
     * It waits 10 s for an answer: a gateway's --fence-timeout must be shorter, or a write it holds
     * for the whole fence timeout during a failover is recorded as {@link #NO_ANSWER} instead of 503.
     */
    static Write put(int port, String id, String resource, long token) {
        long sent = System.nanoTime();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + resource))
                .timeout(Duration.ofSeconds(10)).header("Fencing-Token", Long.toString(token)).header("X-Request-Id", id)
                .PUT(HttpRequest.BodyPublishers.ofString(id)).build();
        try {
            HttpResponse<Void> response = HTTP.send(request, HttpResponse.BodyHandlers.discarding());
            return new Write(id, resource, token, response.statusCode(), response.headers().firstValue("Retry-After").isPresent(),
                    sent, System.nanoTime());
        } catch (IOException e) {
            return new Write(id, resource, token, NO_ANSWER, false, sent, System.nanoTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Write(id, resource, token, NO_ANSWER, false, sent, System.nanoTime());
        }
    }

    private void write(int worker) {
        // Tokens start at 2, so one below any acknowledged token is still a valid token.
        for (long n = 0; running; n++) {
            String resource = prefix + "/w" + worker + "/r" + n % RESOURCES_PER_WRITER;
            writes.add(put(port, "w" + worker + "-" + n, resource, n + 2));
            try {
                Thread.sleep(PACE.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Stops the workers once their writes in flight are answered. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(Duration.ofSeconds(15).toMillis());
        }
    }
}
