package dev.fencegate.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.util.DriverDataSource;
import dev.fencegate.config.DatabaseConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * The connection pool to the fence database, set up so that a dead, hung or locked database
 * turns into fast failures rather than waiting threads: every wait has a bound.
 */
public final class FenceDatabase implements AutoCloseable {

    /** Connections beyond --db-pool-size: the in-flight listener's and the reconciler's. */
    public static final int HOUSEKEEPING_CONNECTIONS = 2;

    private final HikariDataSource dataSource;
    private final HikariConfig migrations;
    private final String schema;

    private FenceDatabase(HikariDataSource dataSource, HikariConfig migrations, String schema) {
        this.dataSource = dataSource;
        this.migrations = migrations;
        this.schema = schema;
    }

    /** A pool whose sessions name no naming: the fence_naming check of registrations is not made for them. */
    public static FenceDatabase open(DatabaseConfig config) {
        return open(config, "");
    }

    /** A pool whose sessions name their naming and no signing setting: the database checks the naming only. */
    public static FenceDatabase open(DatabaseConfig config, String namingKey) {
        return open(config, namingKey, "");
    }

    /**
     * @param namingKey {@link NamingGuard#sessionKey} of the instance's naming: every session carries it
     *                  ({@code fencegate.naming}), and the database writes its registrations only while
     *                  that naming is the one recorded and carried
     * @param tokensSigned whether the instance requires signed tokens: every session carries it
     *                  ({@code fencegate.tokens}), and the database writes its registrations only while
     *                  the setting recorded is that one (or none is recorded yet)
     */
    public static FenceDatabase open(DatabaseConfig config, String namingKey, boolean tokensSigned) {
        return open(config, namingKey, tokensSigned ? "signed" : "unsigned", null, null);
    }

    /**
     * As {@link #open(DatabaseConfig, String, boolean)}, with every new connection shown to
     * {@code durability} and {@code history} before the pool hands it out: its commits wait for the
     * disk, and none is made to a server that cannot keep them or whose history went back behind a
     * commit this instance saw confirmed.
     */
    public static FenceDatabase open(DatabaseConfig config, String namingKey, boolean tokensSigned, HistoryGuard history,
                                     DurabilityGuard durability) {
        return open(config, namingKey, tokensSigned ? "signed" : "unsigned", history, durability);
    }

    private static FenceDatabase open(DatabaseConfig config, String namingKey, String tokens) {
        return open(config, namingKey, tokens, null, null);
    }

    private static FenceDatabase open(DatabaseConfig config, String namingKey, String tokens, HistoryGuard history,
                                      DurabilityGuard durability) {
        HikariConfig hikari = connectionsTo(config, "fencegate-fences", "fencegate/" + config.schema());
        // One connection per fence-check thread, and one each for the listener and the reconciler,
        // which would otherwise take theirs from the checks; the listener's probes borrow the
        // reconciler's between its sweeps, for one short statement each.
        hikari.setMaximumPoolSize(config.poolSize() + HOUSEKEEPING_CONNECTIONS);
        hikari.setMinimumIdle(config.poolSize() + HOUSEKEEPING_CONNECTIONS);
        hikari.setAutoCommit(true);
        hikari.setSchema(config.schema());
        // Start even while the database is down: readiness reports it and writes get 503.
        hikari.setInitializationFailTimeout(-1);
        Duration bound = config.checkTimeout();
        hikari.setConnectionTimeout(Math.max(250, bound.toMillis()));
        hikari.setValidationTimeout(Math.max(250, Math.min(bound.toMillis(), 5_000)));
        hikari.setKeepaliveTime(Duration.ofSeconds(30).toMillis());
        hikari.addDataSourceProperty("connectTimeout", Long.toString(Math.max(1, bound.toSeconds())));
        // The socket timeout catches a server that stopped answering mid-statement.
        hikari.addDataSourceProperty("socketTimeout", Long.toString(bound.toSeconds() + 5));
        long ms = bound.toMillis();
        // fencegate.gateway, set to the fence database's own mark, marks our sessions: the fence
        // table announces only raises made by others (V15). Before that migration has run there is
        // no mark, and a session keeps the 'on' it starts with, which under our application name
        // marks it as well (V16, as earlier versions mark theirs); migrate(), called once per start
        // before the first write, then has the pool replace its sessions with marked ones.
        hikari.setConnectionInitSql(markSession(config.schema()));
        // Generic plans: a batch statement's custom plan cost more to make than to run. No
        // sequential scans: every lookup here is by key, and fence_inflight churns (a row in and
        // out per new object), so between vacuums its statistics can show a few live rows beside a
        // large index, and the planner then scans the whole heap for every claim. No JIT: with
        // statistics missing or stale, the batch statement's generic plan can be costed above
        // jit_above_cost, and it would then be compiled again on every run (36 ms against 0.3 ms).
        hikari.addDataSourceProperty("options", "-c lock_timeout=" + ms + " -c statement_timeout=" + (ms + 1_000)
                + " -c idle_in_transaction_session_timeout=" + (ms + 5_000) + " -c fencegate.gateway=on"
                + " -c plan_cache_mode=force_generic_plan -c enable_seqscan=off -c jit=off"
                + (namingKey.isEmpty() ? "" : " -c fencegate.naming=" + namingKey)
                + (tokens.isEmpty() ? "" : " -c fencegate.tokens=" + tokens));
        if (history != null) {
            // The pool then connects through this data source, made as the pool would make its own.
            hikari.setDataSource(new CheckedConnections(new DriverDataSource(hikari.getJdbcUrl(), null,
                    hikari.getDataSourceProperties(), hikari.getUsername(), hikari.getPassword()), history, durability));
        }
        return new FenceDatabase(new HikariDataSource(hikari), migrations(config, ms), config.schema());
    }

    /**
     * Settings for connections of their own for migrations, without the pool's statement and
     * socket timeouts: a migration that rewrites a large fence table runs as long as it must, where
     * under the pool's bounds it would be cancelled and tried again forever, holding the table's
     * lock each time. The lock is still waited for only as long as a fence check is, so a migration
     * that cannot get its lock fails fast and is tried again at the next check, instead of queueing
     * every gateway's statements behind it. The URL, user and password are read as the pool reads
     * them (parameters in the URL win).
     */
    private static HikariConfig migrations(DatabaseConfig config, long lockTimeoutMillis) {
        HikariConfig migrations = connectionsTo(config, "fencegate-migrations", "fencegate/" + config.schema() + "/migrations");
        migrations.setMaximumPoolSize(2); // Flyway holds one for its lock and migrates on another
        migrations.setMinimumIdle(0);
        migrations.setConnectionTimeout(Math.max(250, lockTimeoutMillis));
        migrations.addDataSourceProperty("socketTimeout", "0");
        migrations.addDataSourceProperty("options", "-c lock_timeout=" + lockTimeoutMillis + " -c statement_timeout=0"
                + " -c fencegate.gateway=on" + MIGRATION_KEEPALIVES);
        return migrations;
    }

    /**
     * The database probes a migration session's client after 10 s of silence, every 5 s, and ends
     * the session after 3 probes go unanswered, or once data it sent has gone unacknowledged for 25 s
     * (probes are not sent while an answer waits to be acknowledged, as one does when the host is
     * lost as a statement ends): a gateway whose host is lost mid-migration (a
     * partition, no FIN or RST) would otherwise leave its transaction open, holding the fence
     * table's lock and stopping every instance's writes, until the system's keepalive gave up (over
     * two hours by default). Not an idle-in-transaction timeout: Flyway's lock is held by a
     * transaction left idle for as long as a migration runs.
     */
    static final String MIGRATION_KEEPALIVES = " -c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"
            + " -c tcp_user_timeout=25000";

    /** A data source of migration sessions, as {@link #migrate} opens them. */
    HikariDataSource migrationSessions() {
        return new HikariDataSource(migrations);
    }

    /** The database, user and password as configured (parameters in the URL win), with TCP keepalive. */
    private static HikariConfig connectionsTo(DatabaseConfig config, String poolName, String applicationName) {
        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName(poolName);
        hikari.setJdbcUrl(config.url());
        hikari.setUsername(config.user());
        hikari.setPassword(config.password());
        hikari.addDataSourceProperty("tcpKeepAlive", "true");
        hikari.addDataSourceProperty("ApplicationName", applicationName);
        return hikari;
    }

    public MigrateResult migrate() {
        MigrateResult result;
        try (HikariDataSource connections = migrationSessions()) {
            result = migrate(connections);
        }
        // Sessions opened before the gateway mark existed (made by this migration or another
        // instance's under way) carry only 'on': replace them as they come back, once per start.
        dataSource.getHikariPoolMXBean().softEvictConnections();
        return result;
    }

    /**
     * The statement each new session runs first: it sets {@code fencegate.gateway} to the mark
     * the migration chose for this fence database, which only gateways read and set. Without the
     * table (not yet migrated) the session keeps the 'on' it started with. The schema is quoted:
     * it may be spelt like an SQL keyword.
     */
    static String markSession(String schema) {
        return "DO $mark$ BEGIN PERFORM set_config('fencegate.gateway', mark, false) FROM \"" + schema + "\".gateway_mark;"
                + " EXCEPTION WHEN undefined_table THEN NULL; END $mark$";
    }

    private MigrateResult migrate(DataSource connections) {
        return Flyway.configure()
                .dataSource(connections)
                .locations("classpath:db/migration")
                .schemas(schema)
                .defaultSchema(schema)
                .createSchemas(true)
                .validateMigrationNaming(true)
                .load()
                .migrate();
    }

    /**
     * The other schemas of this database that hold the gateway's tables, by name (at most ten):
     * where a fresh fence schema is made beside them, the instance may have been pointed at the
     * wrong one, and starts with none of their fences.
     */
    public List<String> otherFenceSchemas() throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                             + " WHERE c.relname = 'fence_inflight' AND c.relkind IN ('r', 'p') AND n.nspname <> ?"
                             + " ORDER BY 1 LIMIT 10")) {
            select.setString(1, schema);
            List<String> schemas = new ArrayList<>();
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    schemas.add(row.getString(1));
                }
            }
            return schemas;
        }
    }

    public HikariDataSource dataSource() {
        return dataSource;
    }

    public HikariPoolMXBean pool() {
        return dataSource.getHikariPoolMXBean();
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
