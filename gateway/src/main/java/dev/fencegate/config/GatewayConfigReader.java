package dev.fencegate.config;

import static dev.fencegate.config.Setting.ACCESS_LOG;
import static dev.fencegate.config.Setting.ADMIN_LISTEN;
import static dev.fencegate.config.Setting.ADMIN_TOKEN;
import static dev.fencegate.config.Setting.ALLOW_TEMPORARY_NAMES;
import static dev.fencegate.config.Setting.ALLOW_UNSAFE_DURABILITY;
import static dev.fencegate.config.Setting.CHANGE_FENCE_NAMING;
import static dev.fencegate.config.Setting.CLIENT_IDLE_TIMEOUT;
import static dev.fencegate.config.Setting.DB_PASSWORD;
import static dev.fencegate.config.Setting.DB_POOL_SIZE;
import static dev.fencegate.config.Setting.DB_SCHEMA;
import static dev.fencegate.config.Setting.DB_URL;
import static dev.fencegate.config.Setting.DB_USER;
import static dev.fencegate.config.Setting.FENCE_TIMEOUT;
import static dev.fencegate.config.Setting.HEAD_TIMEOUT;
import static dev.fencegate.config.Setting.IO_THREADS;
import static dev.fencegate.config.Setting.LISTEN;
import static dev.fencegate.config.Setting.MAX_BODY_SIZE;
import static dev.fencegate.config.Setting.MAX_CONNECTIONS;
import static dev.fencegate.config.Setting.MAX_HEADER_COUNT;
import static dev.fencegate.config.Setting.MAX_HEADER_SIZE;
import static dev.fencegate.config.Setting.STORE_KIND;
import static dev.fencegate.config.Setting.TRUSTED_PROXIES;
import static dev.fencegate.config.Setting.VIRTUAL_HOST_DOMAINS;
import static dev.fencegate.config.Setting.MAX_URI_LENGTH;
import static dev.fencegate.config.Setting.MULTIPART_UPLOAD_LIFETIME;
import static dev.fencegate.config.Setting.REMEMBERED_FENCES;
import static dev.fencegate.config.Setting.REQUIRE_SYNC_STANDBY;
import static dev.fencegate.config.Setting.SCOPES;
import static dev.fencegate.config.Setting.TLS_CLIENT_TRUSTSTORE;
import static dev.fencegate.config.Setting.TLS_CLIENT_TRUSTSTORE_PASSWORD;
import static dev.fencegate.config.Setting.TLS_KEYSTORE;
import static dev.fencegate.config.Setting.TLS_KEYSTORE_PASSWORD;
import static dev.fencegate.config.Setting.TOKEN_KEY_FILE;
import static dev.fencegate.config.Setting.UNSCOPED_WRITES;
import static dev.fencegate.config.Setting.UPSTREAM;
import static dev.fencegate.config.Setting.UPSTREAM_CA;
import static dev.fencegate.config.Setting.UPSTREAM_CONNECT_TIMEOUT;
import static dev.fencegate.config.Setting.UPSTREAM_TIMEOUT;

/** Turns layered settings into the validated, immutable {@link GatewayConfig}. */
public final class GatewayConfigReader {

    private GatewayConfigReader() {
    }

    /** @throws IllegalArgumentException naming the setting, what was expected and where a bad value was set */
    public static GatewayConfig read(EffectiveSettings settings) {
        if (settings.text(UPSTREAM) == null) {
            throw new IllegalArgumentException("--upstream: missing (expected the store's base URL, e.g. http://127.0.0.1:9000,"
                    + " as the flag, FENCEGATE_UPSTREAM or upstream in the --config file)");
        }
        try {
            int ioThreads = settings.integer(IO_THREADS);
            return new GatewayConfig(settings.hostPort(LISTEN), settings.hostPort(ADMIN_LISTEN), settings.uri(UPSTREAM),
                    new DatabaseConfig(settings.text(DB_URL), settings.text(DB_SCHEMA), settings.text(DB_USER),
                            settings.text(DB_PASSWORD), settings.integer(DB_POOL_SIZE), settings.duration(FENCE_TIMEOUT)),
                    settings.duration(UPSTREAM_CONNECT_TIMEOUT), settings.duration(UPSTREAM_TIMEOUT),
                    settings.duration(CLIENT_IDLE_TIMEOUT),
                    new Limits(settings.integer(MAX_URI_LENGTH), settings.integer(MAX_HEADER_SIZE),
                            settings.longInteger(MAX_BODY_SIZE), settings.integer(MAX_HEADER_COUNT),
                            settings.integer(MAX_CONNECTIONS), settings.text(TRUSTED_PROXIES), settings.text(VIRTUAL_HOST_DOMAINS),
                            StoreKind.parse(settings.text(STORE_KIND)), settings.duration(HEAD_TIMEOUT),
                            settings.bool(ALLOW_TEMPORARY_NAMES)),
                    new SafetyConfig(settings.bool(ALLOW_UNSAFE_DURABILITY), settings.bool(REQUIRE_SYNC_STANDBY),
                            settings.integer(REMEMBERED_FENCES), settings.text(TOKEN_KEY_FILE)),
                    ioThreads == 0 ? Runtime.getRuntime().availableProcessors() : ioThreads,
                    new OperationsConfig(settings.accessLog(ACCESS_LOG), settings.text(ADMIN_TOKEN),
                            settings.duration(MULTIPART_UPLOAD_LIFETIME)),
                    new ScopeConfig(settings.text(SCOPES), ScopeConfig.refuses(settings.text(UNSCOPED_WRITES)),
                            settings.bool(CHANGE_FENCE_NAMING)),
                    new TlsConfig(settings.text(TLS_KEYSTORE), settings.text(TLS_KEYSTORE_PASSWORD),
                            settings.text(TLS_CLIENT_TRUSTSTORE), settings.text(TLS_CLIENT_TRUSTSTORE_PASSWORD),
                            settings.text(UPSTREAM_CA)));
        } catch (IllegalArgumentException e) {
            throw settings.explain(e);
        }
    }
}
