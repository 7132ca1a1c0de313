package dev.fencegate.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * The gateway's settings as flags; each flag's default comes from its FENCEGATE_* environment
 * variable, then from the built-in default. Converted and validated once by {@link #toConfig()}.
 */
public final class GatewayOptions {

    @Option(names = "--listen", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            defaultValue = "${env:FENCEGATE_LISTEN:-127.0.0.1:8080}", description = "Data port (env FENCEGATE_LISTEN; default ${DEFAULT-VALUE}).")
    HostPort listen;

    @Option(names = "--admin-listen", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            defaultValue = "${env:FENCEGATE_ADMIN_LISTEN:-127.0.0.1:9090}", description = "Admin port: /livez, /readyz, /metrics (env FENCEGATE_ADMIN_LISTEN; default ${DEFAULT-VALUE}).")
    HostPort adminListen;

    @Option(names = "--upstream", paramLabel = "URL", converter = UriConverter.class,
            defaultValue = "${env:FENCEGATE_UPSTREAM}", description = "Base URL of the store, http://HOST[:PORT][/PATH] (env FENCEGATE_UPSTREAM; required).")
    URI upstream;

    @Option(names = "--db-url", paramLabel = "JDBC_URL",
            defaultValue = "${env:FENCEGATE_DB_URL:-jdbc:postgresql://127.0.0.1:5432/postgres}", description = "Fence database (env FENCEGATE_DB_URL; default ${DEFAULT-VALUE}).")
    String dbUrl;

    @Option(names = "--db-schema", defaultValue = "${env:FENCEGATE_DB_SCHEMA:-public}", description = "Schema of the fence table, created if missing (env FENCEGATE_DB_SCHEMA; default ${DEFAULT-VALUE}).")
    String dbSchema;

    @Option(names = "--db-user", defaultValue = "${env:FENCEGATE_DB_USER:-postgres}", description = "Database user (env FENCEGATE_DB_USER; default ${DEFAULT-VALUE}).")
    String dbUser;

    @Option(names = "--db-password", defaultValue = "${env:FENCEGATE_DB_PASSWORD:-}", description = "Database password (env FENCEGATE_DB_PASSWORD; default empty).")
    String dbPassword;

    @Option(names = "--db-pool-size", defaultValue = "${env:FENCEGATE_DB_POOL_SIZE:-16}", description = "Database connections, and fence-check threads (env FENCEGATE_DB_POOL_SIZE; default ${DEFAULT-VALUE}).")
    int dbPoolSize;

    @Option(names = "--fence-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:FENCEGATE_FENCE_TIMEOUT:-2s}", description = "Longest wait for a fence decision before a write gets 503 (env FENCEGATE_FENCE_TIMEOUT; default ${DEFAULT-VALUE}).")
    Duration fenceTimeout;

    @Option(names = "--upstream-connect-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:FENCEGATE_UPSTREAM_CONNECT_TIMEOUT:-2s}", description = "Longest wait to connect to the store; then 502 (default ${DEFAULT-VALUE}).")
    Duration upstreamConnectTimeout;

    @Option(names = "--upstream-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:FENCEGATE_UPSTREAM_TIMEOUT:-60s}", description = "Longest a request may take at the store, body included; then 504 (default ${DEFAULT-VALUE}).")
    Duration upstreamTimeout;

    @Option(names = "--client-idle-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:FENCEGATE_CLIENT_IDLE_TIMEOUT:-30s}", description = "Longest silence from a client mid-request (408) or between requests (close) (default ${DEFAULT-VALUE}).")
    Duration clientIdleTimeout;

    @Option(names = "--max-uri-length", defaultValue = "${env:FENCEGATE_MAX_URI_LENGTH:-8192}", description = "Longest request line; longer gets 414 (default ${DEFAULT-VALUE}).")
    int maxUriLength;

    @Option(names = "--max-header-size", defaultValue = "${env:FENCEGATE_MAX_HEADER_SIZE:-16384}", description = "Largest header block in bytes; larger gets 431 (default ${DEFAULT-VALUE}).")
    int maxHeaderSize;

    @Option(names = "--allow-unsafe-durability", defaultValue = "${env:FENCEGATE_ALLOW_UNSAFE_DURABILITY:-false}",
            description = "Serve writes even when the database can lose acknowledged commits (env FENCEGATE_ALLOW_UNSAFE_DURABILITY; default ${DEFAULT-VALUE}).")
    boolean allowUnsafeDurability;

    @Option(names = "--require-sync-standby", defaultValue = "${env:FENCEGATE_REQUIRE_SYNC_STANDBY:-false}",
            description = "Refuse writes unless a synchronous standby confirms every fence commit (env FENCEGATE_REQUIRE_SYNC_STANDBY; default ${DEFAULT-VALUE}).")
    boolean requireSyncStandby;

    @Option(names = "--remembered-fences", defaultValue = "${env:FENCEGATE_REMEMBERED_FENCES:-100000}",
            description = "Resources whose highest admitted token each instance remembers, to refuse regressions after a database loss (default ${DEFAULT-VALUE}).")
    int rememberedFences;

    @Option(names = "--io-threads", defaultValue = "${env:FENCEGATE_IO_THREADS:-0}", description = "Event loop threads; 0 means one per core (default ${DEFAULT-VALUE}).")
    int ioThreads;

    /** Builds the validated, immutable config; the message of any failure names the setting. */
    public GatewayConfig toConfig() {
        if (upstream == null) {
            throw new IllegalArgumentException("--upstream: missing (expected the store's base URL, e.g. http://127.0.0.1:9000, or FENCEGATE_UPSTREAM)");
        }
        int threads = ioThreads == 0 ? Runtime.getRuntime().availableProcessors() : ioThreads;
        return new GatewayConfig(listen, adminListen, upstream,
                new DatabaseConfig(dbUrl, dbSchema, dbUser, dbPassword, dbPoolSize, fenceTimeout),
                upstreamConnectTimeout, upstreamTimeout, clientIdleTimeout,
                new Limits(maxUriLength, maxHeaderSize, 0),
                new SafetyConfig(allowUnsafeDurability, requireSyncStandby, rememberedFences), threads);
    }

    static final class HostPortConverter implements ITypeConverter<HostPort> {
        @Override
        public HostPort convert(String value) {
            return HostPort.parse(value);
        }
    }

    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return Durations.parse(value);
        }
    }

    static final class UriConverter implements ITypeConverter<URI> {
        @Override
        public URI convert(String value) throws URISyntaxException {
            return new URI(value);
        }
    }
}
