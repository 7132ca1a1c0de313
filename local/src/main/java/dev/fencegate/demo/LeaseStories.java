package dev.fencegate.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Consumer;

/** The two stories the product exists for, told against a running gateway and store. */
public final class LeaseStories {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final int gatewayPort;
    private final MemoryObjectStore store;
    private final Consumer<String> say;

    public LeaseStories(int gatewayPort, MemoryObjectStore store, Consumer<String> say) {
        this.gatewayPort = gatewayPort;
        this.store = store;
        this.say = say;
    }

    /** A worker pauses past its lease; another takes over; the first one's late write is refused. */
    public boolean pausedHolder() throws IOException, InterruptedException {
        String path = "/reports/" + UUID.randomUUID() + ".csv";
        say.accept("Story 1: a worker pauses past its lease (the pauses are narrated, not waited for)");
        say.accept("t=0s   worker A is granted the lease on " + path + " with fencing token 7");
        int a1 = put(path, 7, null, "A's first draft").statusCode();
        say.accept("t=1s   A writes with token 7                 -> " + a1 + " (store now holds: " + held(path) + ")");
        say.accept("t=2s   A stops: a 40 s garbage-collection pause. Its 30 s lease runs out.");
        say.accept("t=32s  worker B is granted the lease with token 8");
        int b1 = put(path, 8, null, "B's report").statusCode();
        say.accept("t=33s  B writes with token 8                 -> " + b1 + " (store now holds: " + held(path) + ")");
        say.accept("t=42s  A wakes up, still believing it holds the lease, and writes with token 7");
        HttpResponse<String> late = put(path, 7, null, "A's stale report");
        say.accept("       -> " + late.statusCode() + " " + late.body());
        say.accept("       store still holds: " + held(path));
        return a1 / 100 == 2 && b1 / 100 == 2 && late.statusCode() == 412 && "B's report".equals(content(path));
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
