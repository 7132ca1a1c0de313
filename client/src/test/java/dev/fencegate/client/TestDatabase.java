package dev.fencegate.client;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The PostgreSQL the gateway's suite runs against (127.0.0.1:5432, database {@code test}, or the
 * URL in {@code fencegate.test.db-url} / {@code FENCEGATE_TEST_DB_URL}), with a schema per caller.
 */
final class TestDatabase {

    static final String URL = System.getProperty("fencegate.test.db-url",
            System.getenv().getOrDefault("FENCEGATE_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/test"));
    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private TestDatabase() {
    }

    static String newSchema(String owner) {
        String base = owner.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
        return "c_" + base.substring(0, Math.min(40, base.length())) + "_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    }

    /** Connections into a fresh schema holding a migrated leases table. */
    static DataSource migrated(String owner) {
        String schema = newSchema(owner);
        DataSource source = PostgresLeaseStore.dataSource(URL, "postgres", "", schema, Duration.ofSeconds(5));
        PostgresLeaseStore.migrate(source, schema);
        return source;
    }
}
