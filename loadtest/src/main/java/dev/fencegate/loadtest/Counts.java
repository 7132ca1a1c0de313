package dev.fencegate.loadtest;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Outcomes of the measured requests. A 412 answering a write sent with a deliberately stale
 * token is an expected refusal, not an error; a 2xx for such a write is counted apart as
 * {@code staleAdmitted}, since only a fenced target should refuse it. A 404 answering a read is
 * the store saying nothing was written there yet, passed on: not an error either.
 */
public record Counts(
        @JsonProperty("1xx") long informational,
        @JsonProperty("2xx") long success,
        @JsonProperty("3xx") long redirection,
        @JsonProperty("4xx") long clientError,
        @JsonProperty("5xx") long serverError,
        long expectedRefusals,
        long unexpectedRefusals,
        long staleAdmitted,
        long readsNotFound,
        long transportErrors,
        long timeouts,
        long unfinished,
        long warmupAnswered) {

    @JsonProperty("answered")
    public long answered() {
        return informational + success + redirection + clientError + serverError;
    }

    /** Every measured request that did not end in a 2xx, an expected refusal or a read's 404. */
    @JsonProperty("errors")
    public long errors() {
        return answered() - success - expectedRefusals - readsNotFound + transportErrors + timeouts + unfinished;
    }
}
