package dev.fencegate.config;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The query parameters a {@code --db-url} may not carry. pgJDBC reads a URL's parameters over the
 * properties the gateway hands it, so one named there replaces the gateway's own setting: a URL's
 * {@code socketTimeout=0} alone would let a hung database hang every fence check. Refused are the
 * parameters the gateway (or its pool) sets on every connection, those that change how its
 * sessions behave in ways it relies on, and {@code service}, whose file could set the latter.
 * The rest ({@code sslmode}, {@code targetServerType}, {@code prepareThreshold}, a {@code user}
 * and {@code password}, which win over --db-user and --db-password...) are the operator's.
 */
final class DatabaseUrlParameters {

    /** Each refused parameter, as pgJDBC spells it, and why. */
    private static final Map<String, String> REFUSED = Map.ofEntries(
            Map.entry("options", "the gateway sets its sessions' options itself, their fence naming and timeouts among"
                    + " them; set server settings with ALTER ROLE or ALTER DATABASE ... SET instead"),
            Map.entry("socketTimeout", "the gateway sets it itself from --fence-timeout, so that a database that stops"
                    + " answering fails a fence check instead of holding its thread"),
            Map.entry("connectTimeout", "the gateway sets it itself from --fence-timeout, to bound each connection attempt"),
            Map.entry("loginTimeout", "the gateway's pool sets it itself from --fence-timeout, to bound each login"),
            Map.entry("tcpKeepAlive", "the gateway sets it itself, so that a connection to a lost host is found dead"),
            Map.entry("ApplicationName", "the gateway sets it itself: the fence database tells by it a gateway session"
                    + " that does not carry the gateway mark yet, whose own raises it would otherwise announce back to it"),
            Map.entry("currentSchema", "the gateway sets its sessions' schema itself, from --db-schema"),
            Map.entry("readOnly", "the gateway's pool sets its sessions read-write itself: they write the fences"),
            Map.entry("readOnlyMode", "with readOnly it decides whether the gateway's sessions may write, and the gateway"
                    + " sets them read-write itself"),
            Map.entry("replication", "the gateway's sessions run ordinary statements, which a replication connection refuses"),
            Map.entry("preferQueryMode", "the gateway's statements go with their parameters apart, so that their plans"
                    + " are kept generic; the simple mode sends them as text, planned anew each time"),
            Map.entry("autosave", "the gateway's transactions end at their first failure, where autosave has the driver"
                    + " add a savepoint before each statement and run some failed ones again"),
            Map.entry("cancelSignalTimeout", "it bounds the cancel a fence check sends to a commit that waits on a standby;"
                    + " left unbounded, one to a lost host holds up every later cancel"),
            Map.entry("service", "a service file's settings apply under the gateway's own but over the driver's"
                    + " defaults, so one could set the parameters refused here; name the host, port and database in the"
                    + " URL instead"));

    private DatabaseUrlParameters() {
    }

    /**
     * @throws IllegalArgumentException naming the first refused parameter, with the URL's credentials masked
     */
    static void requireNoneRefused(String url) {
        firstRefused(url).ifPresent(name -> {
            throw new IllegalArgumentException("--db-url: '" + SettingValue.withoutCredentials(url) + "' (expected no "
                    + name + " parameter: " + REFUSED.get(name) + ")");
        });
    }

    /**
     * The first refused parameter the URL's query names, spelt as pgJDBC spells it. pgJDBC reads
     * the query as {@code &}-separated names, each up to its first {@code =} (or without one); a
     * name is matched here in any case and without surrounding blanks, which refuses more
     * spellings than the driver reads, never fewer.
     */
    static Optional<String> firstRefused(String url) {
        int query = url.indexOf('?');
        if (query < 0) {
            return Optional.empty();
        }
        for (String parameter : url.substring(query + 1).split("&")) {
            int equals = parameter.indexOf('=');
            String name = (equals < 0 ? parameter : parameter.substring(0, equals)).strip().toLowerCase(Locale.ROOT);
            Optional<String> refused = REFUSED.keySet().stream()
                    .filter(known -> known.toLowerCase(Locale.ROOT).equals(name)).findFirst();
            if (refused.isPresent()) {
                return refused;
            }
        }
        return Optional.empty();
    }
}
