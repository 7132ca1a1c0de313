package dev.fencegate.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** The JDK HTTP/1.1 client aimed at one store; it pools and keeps connections alive. */
final class StoreClient {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI base;

    StoreClient(MemoryObjectStore store) {
        this.base = URI.create("http://127.0.0.1:" + store.port());
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(20));
    }

    HttpResponse<byte[]> send(HttpRequest.Builder request) {
        try {
            return http.send(request.build(), BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    CompletableFuture<HttpResponse<byte[]>> sendAsync(HttpRequest.Builder request) {
        return http.sendAsync(request.build(), BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> put(String path, String body) {
        return send(request(path).PUT(text(body)));
    }

    HttpResponse<byte[]> get(String path) {
        return send(request(path).GET());
    }

    HttpResponse<byte[]> method(String method, String path) {
        return send(request(path).method(method, BodyPublishers.noBody()));
    }

    static BodyPublisher text(String body) {
        return BodyPublishers.ofString(body, StandardCharsets.UTF_8);
    }

    static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }
}
