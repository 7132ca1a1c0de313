package dev.fencegate.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Counters read from a gateway's admin port, as a scraper would. */
public final class AdminMetrics {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private AdminMetrics() {
    }

    /**
     * {@code fencegate_fence_held_admissions_total}: writes admitted at a fence the instance holds;
     * -1 while the admin port does not answer (a paused gateway's, say), so a wait on it goes on.
     */
    public static double heldAdmissions(int adminPort) {
        try {
            String metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
            return metrics.lines().filter(line -> line.startsWith("fencegate_fence_held_admissions_total"))
                    .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Whether {@code /readyz} answers 200: false while it answers anything else or nothing. */
    public static boolean ready(int adminPort) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/readyz"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The value of the unlabelled metric {@code name}; fails the test if the admin port has none. */
    public static double value(int adminPort, String name) throws IOException, InterruptedException {
        String metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(line -> line.startsWith(name + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst().orElseThrow(() -> new AssertionError("no metric " + name + " on admin port " + adminPort));
    }
}
