package dev.fencegate.admin;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An admin request, free of any transport type.
 *
 * @param rawPath       the path as sent, percent-escapes intact, without the query
 * @param query         the decoded query parameters
 * @param authorization the {@code Authorization} header, if any
 * @param remoteAddress who sent it, for the audit log
 */
public record AdminRequest(String method, String rawPath, Map<String, List<String>> query,
                           Optional<String> authorization, String remoteAddress) {

    public AdminRequest {
        query = Map.copyOf(query);
    }

    /** A request with no query, no credentials, from nowhere in particular: for probes and tests. */
    public static AdminRequest of(String method, String rawPath) {
        return new AdminRequest(method, rawPath, Map.of(), Optional.empty(), "unknown");
    }

    public List<String> parameter(String name) {
        return query.getOrDefault(name, List.of());
    }
}
