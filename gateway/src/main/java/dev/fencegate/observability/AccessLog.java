package dev.fencegate.observability;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fencegate.config.AccessLogFormat;
import java.time.Clock;
import java.time.Duration;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JSON object per request, on the {@code fencegate.access} logger (logback.xml sends it to
 * stdout as the bare message). Off by default; when off, {@link #record} does nothing at all.
 */
public final class AccessLog {

    public static final String LOGGER = "fencegate.access";

    /**
     * What one request amounts to. Fields that do not apply are {@code null}: a read has no
     * token, a refused write has no store time.
     *
     * @param path         the request path; anything from {@code ?} on is dropped, since queries may carry
     *                     credentials (presigned URLs)
     * @param decision     what happened, as {@link dev.fencegate.http.Outcome#tag()}: forwarded, stale-token...
     * @param status       the status the client got, from the store or the gateway
     * @param token        the token the write carried
     * @param currentToken the fence's token when the write was refused as stale
     * @param resource     the canonical resource key of a write; for a write of several (DeleteObjects),
     *                     the one that refused it, or none when all were admitted
     * @param resources    how many resources a write of several was checked against
     * @param fenceCheck   time to the fence decision
     * @param store        time at the store
     * @param total        time from the request head to the end of the answer
     */
    public record Entry(String method, String path, String decision, int status, Long token, Long currentToken,
                        String resource, Integer resources, Duration fenceCheck, Duration store, Duration total) {

        public Entry(String method, String path, String decision, int status, Long token, Long currentToken,
                     String resource, Duration fenceCheck, Duration store, Duration total) {
            this(method, path, decision, status, token, currentToken, resource, null, fenceCheck, store, total);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Logger logger;
    private final boolean enabled;
    private final Clock clock;

    AccessLog(Logger logger, boolean enabled, Clock clock) {
        this.logger = logger;
        this.enabled = enabled;
        this.clock = clock;
    }

    public static AccessLog of(AccessLogFormat format) {
        return new AccessLog(LoggerFactory.getLogger(LOGGER), format == AccessLogFormat.JSON, Clock.systemUTC());
    }

    /** Whether entries are written; lets a caller skip building one. */
    public boolean enabled() {
        return enabled;
    }

    public void record(Entry entry) {
        if (enabled && logger.isInfoEnabled()) {
            logger.info(json(entry));
        }
    }

    String json(Entry entry) {
        ObjectNode line = JSON.createObjectNode();
        line.put("time", clock.instant().toString());
        line.put("method", entry.method());
        line.put("path", withoutQuery(entry.path()));
        line.put("decision", entry.decision());
        line.put("status", entry.status());
        putIfPresent(line, "token", entry.token());
        putIfPresent(line, "currentToken", entry.currentToken());
        if (entry.resource() != null) {
            line.put("resource", entry.resource());
        }
        if (entry.resources() != null) {
            line.put("resources", entry.resources());
        }
        putMillis(line, "fenceMs", entry.fenceCheck());
        putMillis(line, "storeMs", entry.store());
        putMillis(line, "totalMs", entry.total());
        try {
            return JSON.writeValueAsString(line);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an access log line could not be written as JSON", e);
        }
    }

    /**
     * The target without its query, where presigned URLs carry credentials, nor the user and
     * password an absolute-form target may carry before its host (such a request is refused, but logged).
     */
    private static String withoutQuery(String path) {
        if (path == null) {
            return null;
        }
        // The user and password first: a '?' or '@' inside a password must not end it early.
        // An origin-form target, every served request's, has no user part: no matcher made for it.
        String anonymous = path.startsWith("/") ? path : USER_INFO.matcher(path).replaceFirst("$1");
        int query = anonymous.indexOf('?');
        return query < 0 ? anonymous : anonymous.substring(0, query);
    }

    private static final Pattern USER_INFO = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://)[^/]*@");

    private static void putIfPresent(ObjectNode line, String name, Long value) {
        if (value != null) {
            line.put(name, value);
        }
    }

    /** Milliseconds with microsecond precision: a fence check that hits memory takes well under 1 ms. */
    private static void putMillis(ObjectNode line, String name, Duration duration) {
        if (duration != null) {
            line.put(name, Math.round(duration.toNanos() / 1_000.0) / 1_000.0);
        }
    }
}
