package dev.fencegate.config;

import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The gateway's flags. Each one only records what the command line said; defaults, the
 * {@code --config} file and FENCEGATE_* variables are layered under it by {@link EffectiveSettings},
 * and the result is converted and validated once by {@link GatewayConfigReader}.
 */
public final class GatewayOptions {

    private final Map<Setting, String> flags = new EnumMap<>(Setting.class);
    private Path configFile;

    @Option(names = "--config", paramLabel = "FILE",
            description = "YAML file of settings, keys named like the flags without dashes, e.g. 'db-url: ...'; env and flags override it (env FENCEGATE_CONFIG).")
    void config(Path file) {
        configFile = file;
    }

    @Option(names = "--listen", paramLabel = "HOST:PORT", description = "Data port (env FENCEGATE_LISTEN; default 127.0.0.1:8080).")
    void listen(String value) {
        flag(Setting.LISTEN, value);
    }

    @Option(names = "--admin-listen", paramLabel = "HOST:PORT",
            description = "Admin port: /livez, /readyz, /metrics, /fences (env FENCEGATE_ADMIN_LISTEN; default 127.0.0.1:9090).")
    void adminListen(String value) {
        flag(Setting.ADMIN_LISTEN, value);
    }

    @Option(names = "--upstream", paramLabel = "URL", description = "Base URL of the store, http[s]://HOST[:PORT][/PATH]; https verifies the store's certificate and host name (env FENCEGATE_UPSTREAM; required).")
    void upstream(String value) {
        flag(Setting.UPSTREAM, value);
    }

    @Option(names = "--db-url", paramLabel = "JDBC_URL", description = "Fence database (env FENCEGATE_DB_URL; default jdbc:postgresql://127.0.0.1:5432/postgres).")
    void dbUrl(String value) {
        flag(Setting.DB_URL, value);
    }

    @Option(names = "--db-schema", paramLabel = "NAME", description = "Schema of the fence table, created if missing (env FENCEGATE_DB_SCHEMA; default public).")
    void dbSchema(String value) {
        flag(Setting.DB_SCHEMA, value);
    }

    @Option(names = "--db-user", paramLabel = "USER", description = "Database user (env FENCEGATE_DB_USER; default postgres).")
    void dbUser(String value) {
        flag(Setting.DB_USER, value);
    }

    @Option(names = "--db-password", paramLabel = "PASSWORD", description = "Database password; prefer the variable (env FENCEGATE_DB_PASSWORD; default empty).")
    void dbPassword(String value) {
        flag(Setting.DB_PASSWORD, value);
    }

    @Option(names = "--db-pool-size", paramLabel = "N", description = "Fence-check threads, each with a database connection: at most this many batches at once, a second starting only beside a batch that has run 5 ms; two more connections serve notices and registrations (env FENCEGATE_DB_POOL_SIZE; default 2).")
    void dbPoolSize(String value) {
        flag(Setting.DB_POOL_SIZE, value);
    }

    @Option(names = "--fence-timeout", paramLabel = "DURATION", description = "Longest wait for a fence decision before a write gets 503 (env FENCEGATE_FENCE_TIMEOUT; default 2s).")
    void fenceTimeout(String value) {
        flag(Setting.FENCE_TIMEOUT, value);
    }

    @Option(names = "--upstream-ca", paramLabel = "FILE", description = "PEM file of the certificate authorities an https --upstream's certificate must chain to (env FENCEGATE_UPSTREAM_CA; default the JDK's trusted roots).")
    void upstreamCa(String value) {
        flag(Setting.UPSTREAM_CA, value);
    }

    @Option(names = "--upstream-connect-timeout", paramLabel = "DURATION", description = "Longest wait to look up and connect to the store; then 502 (env FENCEGATE_UPSTREAM_CONNECT_TIMEOUT; default 2s).")
    void upstreamConnectTimeout(String value) {
        flag(Setting.UPSTREAM_CONNECT_TIMEOUT, value);
    }

    @Option(names = "--upstream-timeout", paramLabel = "DURATION", description = "Longest a request may take at the store, body included; then 504 (env FENCEGATE_UPSTREAM_TIMEOUT; default 60s).")
    void upstreamTimeout(String value) {
        flag(Setting.UPSTREAM_TIMEOUT, value);
    }

    @Option(names = "--client-idle-timeout", paramLabel = "DURATION", description = "Longest silence from a client mid-request (408) or between requests (close) (env FENCEGATE_CLIENT_IDLE_TIMEOUT; default 30s).")
    void clientIdleTimeout(String value) {
        flag(Setting.CLIENT_IDLE_TIMEOUT, value);
    }

    @Option(names = "--head-timeout", paramLabel = "DURATION", description = "Longest a request head may take to arrive whole, from its first byte, however steadily it trickles; then 408 and a close (env FENCEGATE_HEAD_TIMEOUT; default 10s).")
    void headTimeout(String value) {
        flag(Setting.HEAD_TIMEOUT, value);
    }

    @Option(names = "--max-uri-length", paramLabel = "N", description = "Longest request line; longer gets 414 (env FENCEGATE_MAX_URI_LENGTH; default 8192).")
    void maxUriLength(String value) {
        flag(Setting.MAX_URI_LENGTH, value);
    }

    @Option(names = "--max-header-size", paramLabel = "N", description = "Largest header block in bytes; larger gets 431 (env FENCEGATE_MAX_HEADER_SIZE; default 16384).")
    void maxHeaderSize(String value) {
        flag(Setting.MAX_HEADER_SIZE, value);
    }

    @Option(names = "--max-header-count", paramLabel = "N", description = "Most header fields in a request; more gets 431 (env FENCEGATE_MAX_HEADER_COUNT; default 100).")
    void maxHeaderCount(String value) {
        flag(Setting.MAX_HEADER_COUNT, value);
    }

    @Option(names = "--max-body-size", paramLabel = "BYTES", description = "Largest request body; larger gets 413, 0 for no limit (env FENCEGATE_MAX_BODY_SIZE; default 0).")
    void maxBodySize(String value) {
        flag(Setting.MAX_BODY_SIZE, value);
    }

    @Option(names = "--max-connections", paramLabel = "N", description = "Most client connections at once; more are closed on accept (env FENCEGATE_MAX_CONNECTIONS; default 10000).")
    void maxConnections(String value) {
        flag(Setting.MAX_CONNECTIONS, value);
    }

    @Option(names = "--trusted-proxies", paramLabel = "ADDRESSES", description = "Comma-separated client addresses whose Forwarded and X-Forwarded-* headers pass on; others' are dropped (env FENCEGATE_TRUSTED_PROXIES; default none).")
    void trustedProxies(String value) {
        flag(Setting.TRUSTED_PROXIES, value);
    }

    @Option(names = "--virtual-host-domains", paramLabel = "DOMAINS", description = "Comma-separated base domains under which a Host names an S3 bucket: under s3-path such writes are refused; under s3-virtual-host they name the bucket, and the --upstream host name must be one of them (env FENCEGATE_VIRTUAL_HOST_DOMAINS; default localhost).")
    void virtualHostDomains(String value) {
        flag(Setting.VIRTUAL_HOST_DOMAINS, value);
    }

    @Option(names = "--store-kind", paramLabel = "KIND", description = "How the store names objects, which decides what a write is fenced under: http, webdav, s3-path or s3-virtual-host (env FENCEGATE_STORE_KIND; default s3-path).")
    void storeKind(String value) {
        flag(Setting.STORE_KIND, value);
    }

    @Option(names = "--allow-unsafe-durability", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            description = "Serve writes even when the database can lose acknowledged commits (env FENCEGATE_ALLOW_UNSAFE_DURABILITY; default false).")
    void allowUnsafeDurability(String value) {
        flag(Setting.ALLOW_UNSAFE_DURABILITY, value);
    }

    @Option(names = "--require-sync-standby", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            description = "Refuse writes unless a synchronous standby confirms every fence commit; set it for a replicated database, so that a primary whose standbys are away (after a failover) does not count as safe (env FENCEGATE_REQUIRE_SYNC_STANDBY; default false).")
    void requireSyncStandby(String value) {
        flag(Setting.REQUIRE_SYNC_STANDBY, value);
    }

    @Option(names = "--remembered-fences", paramLabel = "N", description = "Resources whose highest admitted token each instance remembers, to refuse regressions after a database loss (env FENCEGATE_REMEMBERED_FENCES; default 100000).")
    void rememberedFences(String value) {
        flag(Setting.REMEMBERED_FENCES, value);
    }

    @Option(names = "--token-key-file", paramLabel = "FILE", description = "Require every token to carry its issuer's signature (Fencing-Token-Signature), made with the key in this file (env FENCEGATE_TOKEN_KEY_FILE; default none).")
    void tokenKeyFile(String value) {
        flag(Setting.TOKEN_KEY_FILE, value);
    }

    @Option(names = "--scopes", paramLabel = "TEMPLATES", description = "Comma-separated path templates whose matches share one fence, e.g. /{bucket}/jobs/{job}/** (env FENCEGATE_SCOPES; default none: every object is its own resource).")
    void scopes(String value) {
        flag(Setting.SCOPES, value);
    }

    @Option(names = "--unscoped-writes", paramLabel = "refuse|per-object", description = "With --scopes, what a write under no scope gets: refused with 403, or fenced per object (env FENCEGATE_UNSCOPED_WRITES; default refuse).")
    void unscopedWrites(String value) {
        flag(Setting.UNSCOPED_WRITES, value);
    }

    @Option(names = "--allow-temporary-names", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            description = "Under s3-path, s3-virtual-host and http, let a write name an object <name>-<UUID>, the name S3Proxy's file store writes a PUT in progress to, and under webdav and http one named <name>.<10 digits>, the name nginx's WebDAV store copies a PUT's body to when its client_body_temp_path is on another file system (refused by default: a write there while the PUT is under way becomes that object); set it for a store that keeps no files of its own among the objects, such as AWS S3, MinIO, or nginx with its body files on the file system of its root (env FENCEGATE_ALLOW_TEMPORARY_NAMES; default false).")
    void allowTemporaryNames(String value) {
        flag(Setting.ALLOW_TEMPORARY_NAMES, value);
    }

    @Option(names = "--change-fence-naming", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            description = "Let this instance change how the fences are named (--store-kind, --virtual-host-domains, the --upstream path, --scopes) when the naming recorded in the fence database differs: every instance refuses writes until the fences are carried over; also records whether this instance requires signed tokens (--token-key-file) (env FENCEGATE_CHANGE_FENCE_NAMING; default false).")
    void changeFenceNaming(String value) {
        flag(Setting.CHANGE_FENCE_NAMING, value);
    }

    @Option(names = "--tls-keystore", paramLabel = "FILE", description = "PKCS#12 keystore with the data port's certificate and key: TLS on the data port (env FENCEGATE_TLS_KEYSTORE; default none: plain HTTP).")
    void tlsKeystore(String value) {
        flag(Setting.TLS_KEYSTORE, value);
    }

    @Option(names = "--tls-keystore-password", paramLabel = "PASSWORD", description = "Its password; prefer the variable (env FENCEGATE_TLS_KEYSTORE_PASSWORD; default empty).")
    void tlsKeystorePassword(String value) {
        flag(Setting.TLS_KEYSTORE_PASSWORD, value);
    }

    @Option(names = "--tls-client-truststore", paramLabel = "FILE", description = "PKCS#12 truststore: every client must present a certificate it trusts (mutual TLS) (env FENCEGATE_TLS_CLIENT_TRUSTSTORE; default none).")
    void tlsClientTruststore(String value) {
        flag(Setting.TLS_CLIENT_TRUSTSTORE, value);
    }

    @Option(names = "--tls-client-truststore-password", paramLabel = "PASSWORD", description = "Its password; prefer the variable (env FENCEGATE_TLS_CLIENT_TRUSTSTORE_PASSWORD; default empty).")
    void tlsClientTruststorePassword(String value) {
        flag(Setting.TLS_CLIENT_TRUSTSTORE_PASSWORD, value);
    }

    @Option(names = "--io-threads", paramLabel = "N", description = "Event loop threads; 0 means one per core (env FENCEGATE_IO_THREADS; default 0).")
    void ioThreads(String value) {
        flag(Setting.IO_THREADS, value);
    }

    @Option(names = "--access-log", paramLabel = "json|off", description = "One JSON line per request on stdout, logger fencegate.access (env FENCEGATE_ACCESS_LOG; default off).")
    void accessLog(String value) {
        flag(Setting.ACCESS_LOG, value);
    }

    @Option(names = "--admin-token", paramLabel = "TOKEN", description = "Bearer token the admin port's /fences endpoints require, 16 to 512 visible ASCII characters (no spaces); needed when --admin-listen is not loopback; prefer the variable (env FENCEGATE_ADMIN_TOKEN; default none).")
    void adminToken(String value) {
        flag(Setting.ADMIN_TOKEN, value);
    }

    @Option(names = "--multipart-upload-lifetime", paramLabel = "DURATION", description = "How long a multipart upload's id is known after CreateMultipartUpload; steps of an older upload get 403 and its record is deleted; keep it above the store's rule for incomplete uploads (env FENCEGATE_MULTIPART_UPLOAD_LIFETIME; default 7d).")
    void multipartUploadLifetime(String value) {
        flag(Setting.MULTIPART_UPLOAD_LIFETIME, value);
    }

    private void flag(Setting setting, String value) {
        // picocli may reset an option to its (absent) default before parsing: null means "not given".
        if (value == null) {
            flags.remove(setting);
        } else {
            flags.put(setting, value);
        }
    }

    /** What the command line set, by setting. */
    public Map<Setting, String> flags() {
        return Collections.unmodifiableMap(flags);
    }

    /** Defaults, then the config file ({@code --config}, else FENCEGATE_CONFIG), then {@code env}, then flags. */
    public EffectiveSettings settings(Map<String, String> env) {
        String fromEnv = env.get(Setting.CONFIG_VARIABLE);
        ConfigFile file = ConfigFile.none();
        if (configFile != null) {
            file = ConfigFile.read(configFile, SettingValue.Source.FLAG);
        } else if (fromEnv != null && !fromEnv.isEmpty()) {
            file = ConfigFile.read(Path.of(fromEnv), SettingValue.Source.ENV);
        }
        return EffectiveSettings.resolve(flags, env, file);
    }

    public GatewayConfig toConfig(Map<String, String> env) {
        return GatewayConfigReader.read(settings(env));
    }

    /** Builds the validated, immutable config from this process's environment; failures name the setting. */
    public GatewayConfig toConfig() {
        return toConfig(System.getenv());
    }
}
