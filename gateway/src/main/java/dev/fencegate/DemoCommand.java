package dev.fencegate;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.HostPort;
import dev.fencegate.config.Limits;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.store.LocalPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The story the product exists for, end to end on this machine: a worker pauses past its lease,
 * another takes over and writes, and the first one's late write is refused at the store's door.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the gateway against a local PostgreSQL and an in-memory store, and show a stale write refused.")
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--db-url", defaultValue = "${env:FENCEGATE_DB_URL:-jdbc:postgresql://127.0.0.1:5432/postgres}",
            description = "PostgreSQL to use; an embedded one starts if none answers (default ${DEFAULT-VALUE}).")
    String dbUrl;

    @Option(names = "--db-user", defaultValue = "${env:FENCEGATE_DB_USER:-postgres}")
    String dbUser;

    @Option(names = "--db-password", defaultValue = "${env:FENCEGATE_DB_PASSWORD:-}")
    String dbPassword;

    private final HttpClient http = HttpClient.newHttpClient();

    @Override
    public Integer call() throws Exception {
        try (LocalPostgres postgres = LocalPostgres.connectOrStart(dbUrl, dbUser, dbPassword);
             MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback())) {
            say("database: " + postgres.description() + ", schema fencegate_demo");
            GatewayConfig config = new GatewayConfig(new HostPort("127.0.0.1", 0), new HostPort("127.0.0.1", 0),
                    URI.create("http://127.0.0.1:" + store.port()),
                    new DatabaseConfig(postgres.url(), "fencegate_demo", postgres.user(), postgres.password(), 4, Duration.ofSeconds(2)),
                    Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(30), Limits.defaults(), SafetyConfig.defaults(), 2);
            try (Gateway gateway = Gateway.start(config)) {
                say("gateway: data port " + gateway.port() + ", admin port " + gateway.adminPort()
                        + ", in front of an in-memory store on port " + store.port());
                return story(gateway.port(), store) ? 0 : 1;
            }
        }
    }

    private boolean story(int port, MemoryObjectStore store) throws Exception {
        String path = "/reports/" + UUID.randomUUID() + ".csv";
        say("");
        say("(a simulated clock: the pauses are narrated, not waited for)");
        say("t=0s   worker A is granted the lease on " + path + " with fencing token 7");
        int a1 = put(port, path, 7, "A's first draft");
        say("t=1s   A writes with token 7                 -> " + a1 + " (store now holds: " + held(store, path) + ")");
        say("t=2s   A stops: a 40 s garbage-collection pause. Its 30 s lease runs out.");
        say("t=32s  worker B is granted the lease with token 8");
        int b1 = put(port, path, 8, "B's report");
        say("t=33s  B writes with token 8                 -> " + b1 + " (store now holds: " + held(store, path) + ")");
        say("t=42s  A wakes up, still believing it holds the lease, and writes with token 7");
        HttpResponse<String> late = send(port, path, 7, "A's stale report");
        say("       -> " + late.statusCode() + " " + late.body());
        say("       store still holds: " + held(store, path));
        boolean refused = a1 / 100 == 2 && b1 / 100 == 2 && late.statusCode() == 412
                && store.object(path).map(bytes -> new String(bytes, StandardCharsets.UTF_8)).orElse("").equals("B's report");
        say("");
        say(refused ? "The stale write was refused where the damage would have happened." : "UNEXPECTED: see above.");
        return refused;
    }

    private int put(int port, String path, long token, String body) throws Exception {
        return send(port, path, token, body).statusCode();
    }

    private HttpResponse<String> send(int port, String path, long token, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Fencing-Token", Long.toString(token))
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String held(MemoryObjectStore store, String path) {
        return store.object(path).map(bytes -> "\"" + new String(bytes, StandardCharsets.UTF_8) + "\"").orElse("nothing");
    }

    private static void say(String line) {
        System.out.println(line);
    }
}
