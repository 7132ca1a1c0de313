package dev.fencegate.nemesis;

import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker pinned to one gateway: mostly the current holder of a resource's lease; sometimes a
 * new grant, a holder that lost its lease, or a worker slow to send its body.
 *
 * @param leases the current token of each resource, shared by all writers, as a lease service would hand them out
 */
record Writer(int number, int gatewayIndex, int port, Random random, Map<String, AtomicLong> leases, List<Sent> sent) {

    private static final int MAX_WRITES = 100_000;

    void run(long endNanos) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<String> paths = List.copyOf(leases.keySet());
        for (int i = 0; i < MAX_WRITES && System.nanoTime() < endNanos; i++) {
            String path = paths.get(random.nextInt(paths.size()));
            AtomicLong lease = leases.get(path);
            int roll = random.nextInt(100);
            Sent.Kind kind = roll < 10 ? Sent.Kind.RAISED : roll < 25 ? Sent.Kind.STALE : roll < 37 ? Sent.Kind.LATE_BODY : Sent.Kind.CURRENT;
            long token = switch (kind) {
                case RAISED -> lease.incrementAndGet();
                case STALE -> Math.max(1, lease.get() - 1 - random.nextInt(2));
                case CURRENT, LATE_BODY -> lease.get();
            };
            String id = "w" + number + "-" + i;
            long sentNanos = System.nanoTime();
            int status = kind == Sent.Kind.LATE_BODY ? lateBody(path, token, id) : Wire.put(http, port, path, token, id, 0);
            sent.add(new Sent(id, path, token, kind, gatewayIndex, status, sentNanos, System.nanoTime()));
        }
    }

    /** The head now, the body after a short or a long wait (longer than a registration lives), both well within the client idle timeout. */
    private int lateBody(String path, long token, String id) {
        long delay = random.nextInt(4) == 0 ? 3_000 + random.nextInt(4_000) : 50 + random.nextInt(950);
        try (Wire.LateBody write = Wire.LateBody.open(port, path, token, id)) {
            Thread.sleep(delay);
            write.sendBody();
            return write.status(Duration.ofSeconds(30));
        } catch (IOException e) {
            return Wire.NO_ANSWER;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Wire.NO_ANSWER;
        }
    }
}
