package dev.fencegate.testing;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.store.FenceDatabase;
import dev.fencegate.store.LocalPostgres;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL the tests run against: the one at {@code -Dfencegate.test.db-url} (or
 * {@code FENCEGATE_TEST_DB_URL}; default 127.0.0.1:5432, database {@code test}) when it answers,
 * an embedded one otherwise. Each test JVM works in a database of its own,
 * {@code fencegate_test_<pid>}, created at first use and dropped when the JVM exits; gateway
 * processes started by tests get its URL. Each caller gets a schema of its own in it, so test
 * classes never see each other's fences.
 */
public final class TestPostgres {

    private static final String URL = System.getProperty("fencegate.test.db-url",
            System.getenv().getOrDefault("FENCEGATE_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/test"));
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static volatile LocalPostgres database;

    private TestPostgres() {
    }

    /** This JVM's own database. */
    public static synchronized LocalPostgres server() {
        if (database == null) {
            LocalPostgres server = LocalPostgres.connectOrStart(URL, "postgres", "");
            LocalPostgres own = server.createDatabase("fencegate_test_");
            System.out.println("Tests use " + own.description());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (server) {
                    own.close();
                }
            }));
            database = own;
        }
        return database;
    }

    /** A fresh, unique schema name for one test class or test. */
    public static String newSchema(String owner) {
        String base = owner.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
        if (base.length() > 40) {
            base = base.substring(0, 40);
        }
        return "t_" + base + "_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    }

    public static DatabaseConfig config(String schema) {
        return config(schema, Duration.ofSeconds(2));
    }

    public static DatabaseConfig config(String schema, Duration checkTimeout) {
        LocalPostgres pg = server();
        return new DatabaseConfig(pg.url(), schema, pg.user(), pg.password(), 4, checkTimeout);
    }

    /** A migrated fence database in a schema of its own. */
    public static FenceDatabase migrated(String owner) {
        FenceDatabase database = FenceDatabase.open(config(newSchema(owner)));
        database.migrate();
        return database;
    }
}
