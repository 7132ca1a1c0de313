package dev.fencegate.loadtest.compare;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.OptionalLong;

/**
 * Reads a gateway's own count of the commits its fence checks made
 * ({@code fencegate_fence_commits_total} on its admin port's {@code /metrics}). Only commits that
 * wrote a registration or a fence count there, each of which waited for the WAL: unlike
 * PostgreSQL's {@code xact_commit}, a read after a raise is not one. The gateway counts as it
 * commits, so a reading needs no settling.
 */
final class FenceCommitCounter {
    static final String METRIC = "fencegate_fence_commits_total";

    private final URI metrics;

    FenceCommitCounter(URI metrics) {
        this.metrics = metrics;
    }

    /** Empty, with the reason on stderr, when the gateway did not answer or published no count. */
    OptionalLong commits() throws InterruptedException {
        try {
            HttpRequest request = LocalHttp.get(metrics);
            HttpResponse<String> response = LocalHttp.CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            OptionalLong count = response.statusCode() == 200 ? parse(response.body()) : OptionalLong.empty();
            if (count.isEmpty()) {
                System.err.println(metrics + " answered " + response.statusCode() + " without " + METRIC);
            }
            return count;
        } catch (IOException e) {
            System.err.println("cannot read " + metrics + ": " + e.getMessage());
            return OptionalLong.empty();
        }
    }

    /** The counter's value in a Prometheus text exposition, with or without labels or a timestamp. */
    static OptionalLong parse(String exposition) {
        for (String line : exposition.split("\n")) {
            if (line.startsWith(METRIC) && line.length() > METRIC.length()
                    && (line.charAt(METRIC.length()) == ' ' || line.charAt(METRIC.length()) == '{')) {
                String rest = line.substring(METRIC.length());
                rest = rest.startsWith("{") ? rest.substring(rest.lastIndexOf('}') + 1) : rest;
                String value = rest.trim().split("\\s+")[0];
                try {
                    return OptionalLong.of((long) Double.parseDouble(value));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }
}
