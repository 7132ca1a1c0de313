package dev.fencegate.loadtest;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Outcomes of the measured requests. A 412 answering a write sent with a deliberately stale
 * token is an expected refusal, not an error; a 2xx for such a write is counted apart as
 * {@code staleAdmitted}, since only a fenced target should refuse it.
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
        long transportErrors,
        long timeouts,
        long unfinished,
        long warmupAnswered) {

    @JsonProperty("answered")
    public long answered() {
        return informational + success + redirection + clientError + serverError;
    }

    /** Every measured request that did not end in a 2xx or an expected refusal. */
    @JsonProperty("errors")
    public long errors() {
        return answered() - success - expectedRefusals + transportErrors + timeouts + unfinished;
    }
}
