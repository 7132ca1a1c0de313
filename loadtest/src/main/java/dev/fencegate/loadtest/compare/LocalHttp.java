package dev.fencegate.loadtest.compare;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;

/** The comparison's own HTTP client for the processes it started: HTTP/1.1, short timeouts. */
final class LocalHttp {
    static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1))
            .build();

    private LocalHttp() {
    }

    /** A GET that gives up after 2 s. */
    static HttpRequest get(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build();
    }
}
