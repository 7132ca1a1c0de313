package dev.fencegate.demo;

import dev.fencegate.client.FenceRefusal;
import dev.fencegate.client.FencedHttpClient;
import dev.fencegate.client.FencedOutException;
import dev.fencegate.client.HeldLease;
import dev.fencegate.client.Lease;
import dev.fencegate.client.LeaseGuard;
import dev.fencegate.client.LeaseStore;
import dev.fencegate.client.LeaseTiming;
import dev.fencegate.client.WriteFencing;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/** The two stories the product exists for, told against a running gateway and store. */
public final class LeaseStories {

    /** Connects within the demo's 200 ms lease margin, as FencedHttpClient requires. */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofMillis(100)).build();
    private final int gatewayPort;
    private final MemoryObjectStore store;
    private final Consumer<String> say;

    public LeaseStories(int gatewayPort, MemoryObjectStore store, Consumer<String> say) {
        this.gatewayPort = gatewayPort;
        this.store = store;
        this.say = say;
    }

    /**
     * A worker pauses past its lease; another takes over; the first one's late write is refused.
     * Both workers use the client library: leases from {@code leases}, tokens put on their writes.
     */
    public boolean pausedHolder(LeaseStore leases) throws IOException, InterruptedException {
        String job = "report-" + UUID.randomUUID();
        String path = "/reports/" + job + ".csv";
        Duration ttl = Duration.ofSeconds(1);
        say.accept("Story 1: a worker pauses past its lease (leases in PostgreSQL, 1 s long for the demo)");
        Lease leaseA = leases.acquire(job, "worker-A", ttl).orElseThrow();
        // A suspended VM's monotonic clock stops with it: A's guard, on that clock, cannot see the pause.
        LeaseGuard guardA = new LeaseGuard(leaseA, LeaseTiming.of(ttl), () -> 0L, 0L);
        FencedHttpClient a = new FencedHttpClient(http, WriteFencing.of(guardA));
        say.accept("t=0s   worker A is granted the lease on " + path + " with fencing token " + leaseA.token());
        int a1 = put(a, path, "A's first draft");
        say.accept("t=0s   A writes with token " + leaseA.token() + "                 -> " + a1 + " (store now holds: " + held(path) + ")");
        say.accept("t=0s   A's VM is suspended, clock and all, and renews nothing. Its lease runs out.");
        try (HeldLease b = takeOver(leases, job, "worker-B", ttl)) {
            say.accept("t=1s   worker B is granted the lease with token " + b.token());
            int b1 = put(new FencedHttpClient(http, WriteFencing.of(b.guard())), path, "B's report");
            say.accept("t=1s   B writes with token " + b.token() + "                 -> " + b1 + " (store now holds: " + held(path) + ")");
            say.accept("later  A resumes, its guard still believing it holds the lease, and writes with token " + leaseA.token());
            boolean refused = false;
            try {
                put(a, path, "A's stale report");
            } catch (FencedOutException e) {
                refused = e.refusal() == FenceRefusal.STALE_TOKEN;
                say.accept("       -> 412 " + e.getMessage());
            }
            say.accept("       A's guard has tripped (" + !guardA.stillHeld() + "): A stops at its first refused write");
            say.accept("       store still holds: " + held(path));
            return a1 / 100 == 2 && b1 / 100 == 2 && refused && !guardA.stillHeld() && "B's report".equals(content(path));
        }
    }

    /** The lease once the database's clock says A's grant expired. */
    private static HeldLease takeOver(LeaseStore leases, String job, String holder, Duration ttl) throws InterruptedException {
        for (int attempt = 0; attempt < 300; attempt++) {
            Optional<HeldLease> held = HeldLease.acquire(leases, job, holder, LeaseTiming.of(ttl));
            if (held.isPresent()) {
                return held.get();
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("lease " + job + " did not expire within 30 s");
    }

    private int put(FencedHttpClient worker, String path, String body) throws IOException, InterruptedException {
        return worker.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gatewayPort + path)).PUT(HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /**
     * A lease store loses an acknowledged grant in a failover: two workers hold the lease with the
     * same token. With holder identity the gateway names the reused token and lets one in.
     */
    public boolean failedOverLeaseStore(RedisLeaseStore leases) throws IOException, InterruptedException {
        String job = "nightly-export-" + UUID.randomUUID().toString().substring(0, 8);
        String path = "/exports/" + job + ".parquet";
        Duration ttl = Duration.ofSeconds(30);
        say.accept("Story 2: the lease store fails over and forgets a grant (Redis primary on port "
                + leases.primaryPort() + ", replica on " + leases.replicaPort() + ")");
        long first = leases.acquire(job, "worker-0", ttl);
        leases.expire(job);
        say.accept("       earlier run: worker-0 took the lease, token " + first + "; it has since expired");
        leases.cutReplicaOff();
        say.accept("       the replica falls behind: its link to the primary is cut");
        long tokenA = leases.acquire(job, "worker-A", ttl);
        say.accept("       worker A takes the lease on the primary: acknowledged, token " + tokenA);
        leases.failOver();
        say.accept("       the primary dies; the replica, which never saw A's grant, is promoted");
        long tokenB = leases.acquire(job, "worker-B", ttl);
        say.accept("       worker B takes the same lease on the new primary: acknowledged, token " + tokenB);
        say.accept("       both believe they hold the lease" + (tokenA == tokenB ? ", with the same token " + tokenA : ""));
        HttpResponse<String> a = put(path, tokenA, "worker-A", "A's export");
        say.accept("       A writes with token " + tokenA + " as worker-A  -> " + a.statusCode());
        HttpResponse<String> b = put(path, tokenB, "worker-B", "B's export");
        say.accept("       B writes with token " + tokenB + " as worker-B  -> " + b.statusCode() + " " + b.body());
        say.accept("       store holds: " + held(path) + "; only one of them got its writes in");
        return tokenA == tokenB && a.statusCode() / 100 == 2 && b.statusCode() == 412 && b.body().contains("reused-token");
    }

    private HttpResponse<String> put(String path, long token, String holder, String body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gatewayPort + path))
                .header("Fencing-Token", Long.toString(token))
                .PUT(HttpRequest.BodyPublishers.ofString(body));
        if (holder != null) {
            request.header("Fencing-Holder", holder);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String content(String path) {
        return store.object(path).map(bytes -> new String(bytes, StandardCharsets.UTF_8)).orElse(null);
    }

    private String held(String path) {
        String content = content(path);
        return content == null ? "nothing" : "\"" + content + "\"";
    }
}
