package dev.fencegate.config;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Every gateway setting under one name, from which its flag ({@code --db-url}), its environment
 * variable ({@code FENCEGATE_DB_URL}) and its config-file key ({@code db-url}) all follow.
 * The default is the text a user would write; {@code null} means the setting is required.
 */
public enum Setting {
    LISTEN("listen", "127.0.0.1:8080", false),
    ADMIN_LISTEN("admin-listen", "127.0.0.1:9090", false),
    UPSTREAM("upstream", null, false),
    UPSTREAM_CA("upstream-ca", "", false),
    DB_URL("db-url", "jdbc:postgresql://127.0.0.1:5432/postgres", false),
    DB_SCHEMA("db-schema", DatabaseConfig.DEFAULT_SCHEMA, false),
    DB_USER("db-user", "postgres", false),
    DB_PASSWORD("db-password", "", true),
    DB_POOL_SIZE("db-pool-size", "2", false),
    FENCE_TIMEOUT("fence-timeout", "2s", false),
    UPSTREAM_CONNECT_TIMEOUT("upstream-connect-timeout", "2s", false),
    UPSTREAM_TIMEOUT("upstream-timeout", "60s", false),
    CLIENT_IDLE_TIMEOUT("client-idle-timeout", "30s", false),
    HEAD_TIMEOUT("head-timeout", "10s", false),
    MAX_URI_LENGTH("max-uri-length", "8192", false),
    MAX_HEADER_SIZE("max-header-size", "16384", false),
    MAX_HEADER_COUNT("max-header-count", "100", false),
    MAX_BODY_SIZE("max-body-size", "0", false),
    MAX_CONNECTIONS("max-connections", "10000", false),
    TRUSTED_PROXIES("trusted-proxies", "", false),
    VIRTUAL_HOST_DOMAINS("virtual-host-domains", "localhost", false),
    STORE_KIND("store-kind", "s3-path", false),
    ALLOW_TEMPORARY_NAMES("allow-temporary-names", "false", false),
    ALLOW_UNSAFE_DURABILITY("allow-unsafe-durability", "false", false),
    REQUIRE_SYNC_STANDBY("require-sync-standby", "false", false),
    REMEMBERED_FENCES("remembered-fences", "100000", false),
    TOKEN_KEY_FILE("token-key-file", "", false),
    SCOPES("scopes", "", false),
    TLS_KEYSTORE("tls-keystore", "", false),
    TLS_KEYSTORE_PASSWORD("tls-keystore-password", "", true),
    TLS_CLIENT_TRUSTSTORE("tls-client-truststore", "", false),
    TLS_CLIENT_TRUSTSTORE_PASSWORD("tls-client-truststore-password", "", true),
    UNSCOPED_WRITES("unscoped-writes", "refuse", false),
    CHANGE_FENCE_NAMING("change-fence-naming", "false", false),
    IO_THREADS("io-threads", "0", false),
    ACCESS_LOG("access-log", "off", false),
    ADMIN_TOKEN("admin-token", "", true),
    MULTIPART_UPLOAD_LIFETIME("multipart-upload-lifetime", "7d", false);

    /** The variable that names the config file; not a setting itself, since it says where settings are. */
    public static final String CONFIG_VARIABLE = "FENCEGATE_CONFIG";
    /** The log's level, read by the logging configuration, not by the settings. */
    public static final String LOG_LEVEL_VARIABLE = "FENCEGATE_LOG_LEVEL";
    private static final String VARIABLE_PREFIX = "FENCEGATE_";
    /** Read by this project's own tests and CI, which start gateways with them set (see the README). */
    private static final Pattern PROJECT_TESTS = Pattern.compile("FENCEGATE_(TEST_|REQUIRE_|SEED$)");

    private final String key;
    private final String defaultValue;
    private final boolean secret;

    Setting(String key, String defaultValue, boolean secret) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.secret = secret;
    }

    /** The config-file key, and the flag without its dashes. */
    public String key() {
        return key;
    }

    public String flag() {
        return "--" + key;
    }

    public String variable() {
        return VARIABLE_PREFIX + key.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /**
     * The variables in {@code env} spelt as the gateway's ({@code FENCEGATE_...}) that it does not
     * read, in order: most often a setting's misspelt ({@code FENCEGATE_TOKEN_KEYFILE}), which
     * would leave that setting at its default without a word.
     */
    public static List<String> unreadVariables(Map<String, String> env) {
        Set<String> read = Arrays.stream(values()).map(Setting::variable).collect(Collectors.toCollection(HashSet::new));
        read.add(CONFIG_VARIABLE);
        read.add(LOG_LEVEL_VARIABLE);
        return env.keySet().stream()
                .filter(name -> name.startsWith(VARIABLE_PREFIX) && !read.contains(name) && !PROJECT_TESTS.matcher(name).lookingAt())
                .sorted().toList();
    }

    /** The built-in default as text; {@code null} for a required setting. */
    public String defaultValue() {
        return defaultValue;
    }

    /**
     * Whether a value given empty is refused rather than read as the default. These settings are
     * off when empty (no signature check, no TLS, no admin token), and an empty value given on
     * purpose is most often a variable that was not set ({@code --token-key-file "$KEYFILE"}) or a
     * YAML key left blank: read as "off", it would turn a check off without a word.
     */
    public boolean refusesEmpty() {
        return switch (this) {
            case TOKEN_KEY_FILE, TLS_KEYSTORE, TLS_CLIENT_TRUSTSTORE, ADMIN_TOKEN -> true;
            default -> false;
        };
    }

    /**
     * Whether an empty variable ({@code FENCEGATE_DB_SCHEMA=}) is refused rather than counted as
     * unset. These settings say which fence table and naming a gateway serves under: read as the
     * default, an empty variable (most often one a template or compose file left unset) would
     * switch a deployment to the default database, schema or store kind without a word, and every
     * resource fenced in the real table would be unfenced there.
     */
    public boolean refusesEmptyVariable() {
        return switch (this) {
            case DB_URL, DB_SCHEMA, STORE_KIND -> true;
            default -> refusesEmpty();
        };
    }

    /** Never printed: check-config and logs show it masked. */
    public boolean secret() {
        return secret;
    }

    public static Optional<Setting> byKey(String key) {
        return Arrays.stream(values()).filter(setting -> setting.key.equals(key)).findFirst();
    }

    /** Every key, for messages that say what was expected. */
    public static String keys() {
        return Arrays.stream(values()).map(Setting::key).collect(Collectors.joining(", "));
    }
}
