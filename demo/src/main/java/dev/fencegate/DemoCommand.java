package dev.fencegate;

import dev.fencegate.client.PostgresLeaseStore;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.HostPort;
import dev.fencegate.config.Limits;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.LeaseStories;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.demo.RedisLeaseStore;
import dev.fencegate.store.LocalPostgres;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The two stories the product exists for, end to end on this machine: a worker pauses past its
 * lease and its late write is refused; a lease store fails over and forgets a grant, two workers
 * hold one token, and only one of them gets its writes in.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the gateway against a local PostgreSQL and an in-memory store, and show a stale write refused.")
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--db-url", defaultValue = "${env:FENCEGATE_DB_URL:-jdbc:postgresql://127.0.0.1:5432/postgres}",
            description = "PostgreSQL server to use (the demo works in a database of its own and drops it); "
                    + "an embedded one starts if none answers (env FENCEGATE_DB_URL; default ${DEFAULT-VALUE}).")
    String dbUrl;

    @Option(names = "--db-user", defaultValue = "${env:FENCEGATE_DB_USER:-postgres}",
            description = "PostgreSQL user (env FENCEGATE_DB_USER; default ${DEFAULT-VALUE}).")
    String dbUser;

    @Option(names = "--db-password", defaultValue = "${env:FENCEGATE_DB_PASSWORD:-}",
            description = "PostgreSQL password (env FENCEGATE_DB_PASSWORD; default none).")
    String dbPassword;

    @Override
    public Integer call() throws Exception {
        LocalPostgres server;
        try {
            server = LocalPostgres.connectOrStart(dbUrl, dbUser, dbPassword);
        } catch (IllegalStateException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        // A database of the demo's own, dropped at the end, so a run leaves nothing behind.
        try (server;
             LocalPostgres postgres = server.createDatabase("fencegate_demo_");
             MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback())) {
            say("using " + postgres.description());
            GatewayConfig config = new GatewayConfig(new HostPort("127.0.0.1", 0), new HostPort("127.0.0.1", 0),
                    URI.create("http://127.0.0.1:" + store.port()),
                    new DatabaseConfig(postgres.url(), "fencegate_demo", postgres.user(), postgres.password(), 4, Duration.ofSeconds(2)),
                    Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(30), Limits.defaults(), SafetyConfig.defaults(), 2);
            try (Gateway gateway = Gateway.start(config)) {
                say("gateway: data port " + gateway.port() + ", admin port " + gateway.adminPort()
                        + ", in front of an in-memory store on port " + store.port());
                LeaseStories stories = new LeaseStories(gateway.port(), store, DemoCommand::say);
                say("");
                DataSource leaseDatabase = PostgresLeaseStore.dataSource(postgres.url(), postgres.user(), postgres.password(),
                        "fencegate_demo", Duration.ofSeconds(5));
                PostgresLeaseStore.migrate(leaseDatabase, "fencegate_demo");
                boolean first = stories.pausedHolder(new PostgresLeaseStore(leaseDatabase));
                say(first ? "=> the stale write was refused where the damage would have happened." : "=> UNEXPECTED: see above.");
                say("");
                boolean second = true;
                if (RedisLeaseStore.available()) {
                    try (RedisLeaseStore leases = RedisLeaseStore.start()) {
                        second = stories.failedOverLeaseStore(leases);
                    }
                    say(second ? "=> the reused token was named as such; one worker's writes got in." : "=> UNEXPECTED: see above.");
                } else {
                    say("Story 2 (a lease store that fails over) needs redis-server: apt-get install redis-server. Skipped.");
                }
                return first && second ? 0 : 1;
            }
        }
    }

    private static void say(String line) {
        System.out.println(line);
    }
}
