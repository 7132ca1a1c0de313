package dev.fencegate.client;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Leases in a PostgreSQL table, one statement per operation. Expiry is judged by the database's
 * clock only ({@code now()}), so workers' clocks never decide who holds a lease; each commit is
 * durable ({@code synchronous_commit = on}), and one that comes back with a warning (a cancelled
 * wait for a synchronous standby) is treated as a failure, since the grant may not survive.
 */
public final class PostgresLeaseStore implements LeaseStore {

    /** Flyway location and history table of the leases schema, apart from the gateway's fences. */
    public static final String MIGRATIONS = "classpath:db/fencegate-client";
    public static final String HISTORY_TABLE = "flyway_client_history";

    private static final String ACQUIRE = """
            INSERT INTO leases AS l (name, holder, token, expires_at)
            VALUES (?, ?, 1, now() + ? * interval '1 millisecond')
            ON CONFLICT (name) DO UPDATE
               SET holder = EXCLUDED.holder, token = l.token + 1, expires_at = EXCLUDED.expires_at
             WHERE l.holder IS NULL OR l.expires_at <= now()
            RETURNING token""";
    private static final String RENEW = """
            UPDATE leases SET expires_at = now() + ? * interval '1 millisecond'
             WHERE name = ? AND holder = ? AND token = ? AND expires_at > now()""";
    private static final String RELEASE = """
            UPDATE leases SET holder = NULL, expires_at = now()
             WHERE name = ? AND holder = ? AND token = ?""";

    /**
     * Longest a transaction of the store may wait on its client between statements: a round trip
     * and what the client does between them, never a pause of the client's process.
     */
    static final Duration IDLE_IN_TRANSACTION = Duration.ofSeconds(1);

    /** The shortest timeout of {@link #dataSource}: the connect timeout counts whole seconds. */
    static final Duration SHORTEST_TIMEOUT = Duration.ofSeconds(1);
    /** The longest: PostgreSQL's largest {@code lock_timeout} and {@code statement_timeout}, in milliseconds. */
    static final Duration LONGEST_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

    private final DataSource dataSource;

    /** Over connections whose search path finds the {@code leases} table (see {@link #migrate}). */
    public PostgresLeaseStore(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Connections opened per operation (leases are renewed a few times a minute, so no pool is
     * needed), each bounded by {@code timeout}: a dead or locked database fails the call, which is
     * then tried again until the lease's local deadline, rather than hanging the renewal.
     *
     * @throws IllegalArgumentException when {@code timeout} is under a second, or above the longest
     *         wait PostgreSQL takes: {@code lock_timeout} and {@code statement_timeout} are whole
     *         milliseconds, and 0, which anything under one becomes, is no bound at all, so a call
     *         behind a lock would leave its session waiting on the server after it gave up; and the
     *         connect timeout counts whole seconds
     */
    public static DataSource dataSource(String url, String user, String password, String schema, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.compareTo(SHORTEST_TIMEOUT) < 0 || timeout.compareTo(LONGEST_TIMEOUT) > 0) {
            throw new IllegalArgumentException("timeout: " + timeout + " (expected " + SHORTEST_TIMEOUT + " to " + LONGEST_TIMEOUT
                    + ": it bounds each statement's wait on the server as lock_timeout and statement_timeout, in whole"
                    + " milliseconds, where 0 means no bound, and the connect timeout, in whole seconds)");
        }
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL(url);
        source.setUser(user);
        source.setPassword(password);
        source.setCurrentSchema(schema);
        source.setTcpKeepAlive(true);
        source.setApplicationName("fencegate-client");
        int seconds = (int) Math.max(1, timeout.toSeconds());
        source.setConnectTimeout(seconds);
        source.setSocketTimeout(seconds + 1);
        source.setOptions("-c lock_timeout=" + timeout.toMillis() + " -c statement_timeout=" + timeout.toMillis());
        return source;
    }

    /** Creates or updates the {@code leases} table in {@code schema}, which may also hold the fences. */
    public static void migrate(DataSource dataSource, String schema) {
        Flyway.configure()
                .dataSource(dataSource)
                .locations(MIGRATIONS)
                .table(HISTORY_TABLE)
                .schemas(schema)
                .defaultSchema(schema)
                .createSchemas(true)
                // A schema that already holds the gateway's tables is not empty, yet has no leases.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .validateMigrationNaming(true)
                .load()
                .migrate();
    }

    @Override
    public Optional<Lease> acquire(String name, String holder, Duration ttl) {
        Lease wanted = new Lease(name, holder, 1, ttl); // refuses an empty name or holder before any round trip
        return inTransaction("acquire lease " + name + " for " + holder, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(ACQUIRE)) {
                statement.setString(1, name);
                statement.setString(2, holder);
                statement.setLong(3, ttl.toMillis());
                try (ResultSet row = statement.executeQuery()) {
                    return row.next() ? Optional.of(new Lease(name, holder, row.getLong(1), wanted.ttl())) : Optional.empty();
                }
            }
        });
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
        return inTransaction("renew " + lease, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(RENEW)) {
                statement.setLong(1, ttl.toMillis());
                statement.setString(2, lease.name());
                statement.setString(3, lease.holder());
                statement.setLong(4, lease.token());
                return statement.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean release(Lease lease) {
        return inTransaction("release " + lease, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(RELEASE)) {
                statement.setString(1, lease.name());
                statement.setString(2, lease.holder());
                statement.setLong(3, lease.token());
                return statement.executeUpdate() == 1;
            }
        });
    }

    private interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    private <T> T inTransaction(String what, Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement set = connection.createStatement()) {
                // An acquire locks the lease's row even when it grants nothing, until its commit: a
                // contender paused between its statement and its commit (a stopped process, a long GC
                // pause) would hold the holder's renewals off until the lease ran out. The session is
                // ended instead, and the lock with it, once idle in the transaction that long.
                set.execute("SET LOCAL synchronous_commit = on; SET LOCAL idle_in_transaction_session_timeout = "
                        + IDLE_IN_TRANSACTION.toMillis());
            }
            T result = work.run(connection);
            connection.clearWarnings();
            connection.commit();
            SQLWarning warning = connection.getWarnings();
            if (warning != null) {
                throw new LeaseStoreException("could not " + what + ": the commit may not be durable: " + warning.getMessage(), warning);
            }
            return result;
        } catch (SQLException e) {
            // 42P01: no leases table in the schema the data source names.
            String hint = "42P01".equals(e.getSQLState()) ? " (create it with PostgresLeaseStore.migrate(dataSource, schema) first)"
                    // 22003: the token is at the largest a bigint holds; no grant can go above it.
                    : "22003".equals(e.getSQLState()) ? " (the lease's token is at " + Long.MAX_VALUE
                    + ", the largest there is: this name cannot be granted again; use another name)" : "";
            throw new LeaseStoreException("could not " + what + ": " + e.getMessage() + hint, e);
        }
    }
}
