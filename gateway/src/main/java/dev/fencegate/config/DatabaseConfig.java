package dev.fencegate.config;

import java.time.Duration;

/** How to reach the fence database, and how long a fence check may take before it fails closed. */
public record DatabaseConfig(String url, String schema, String user, String password, int poolSize, Duration checkTimeout) {

    public static final String DEFAULT_SCHEMA = "public";

    public DatabaseConfig {
        if (url == null || !url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("--db-url: '" + SettingValue.withoutCredentials(String.valueOf(url)) + "' (expected jdbc:postgresql://HOST:PORT/DATABASE)");
        }
        DatabaseUrlParameters.requireNoneRefused(url);
        if (user == null || user.isEmpty()) {
            // The server would only say no user name was sent; an empty flag is most often a variable not set.
            throw new IllegalArgumentException("--db-user: given empty (expected the role to connect as; leave the setting out"
                    + " for postgres)");
        }
        if (schema == null || !schema.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("--db-schema: '" + schema + "' (expected a lower-case SQL identifier)");
        }
        if (schema.startsWith("pg_") || schema.equals("information_schema")) {
            // PostgreSQL's own: a gateway there would never migrate, and never serve.
            throw new IllegalArgumentException("--db-schema: '" + schema + "' (expected a schema of the gateway's own;"
                    + " names beginning pg_, and information_schema, are PostgreSQL's)");
        }
        if (poolSize < 1 || poolSize > 1_000) {
            throw new IllegalArgumentException("--db-pool-size: " + poolSize + " (expected 1 to 1000)");
        }
        Durations.requireTimeout("--fence-timeout", checkTimeout, Duration.ofSeconds(60));
    }

    /** Records print every component; this one must not print the password. */
    @Override
    public String toString() {
        return "DatabaseConfig[" + describe() + ", poolSize=" + poolSize + ", checkTimeout=" + Durations.format(checkTimeout) + "]";
    }

    /** For logs and check-config: the password never leaves the process. */
    public String describe() {
        return SettingValue.withoutCredentials(url) + " schema " + schema + " as " + user + (password == null || password.isEmpty() ? "" : " (password set)");
    }
}
