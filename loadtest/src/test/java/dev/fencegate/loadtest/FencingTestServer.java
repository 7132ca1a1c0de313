package dev.fencegate.loadtest;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/** An in-test target with the fencing rule: 412 below the highest token seen, else 201. */
final class FencingTestServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(8);
    private final Map<String, Long> fences = new ConcurrentHashMap<>();
    private final int closeEvery;
    final AtomicLong requests = new AtomicLong();
    final AtomicLong refused = new AtomicLong();

    /** @param closeEvery answer every n-th request with {@code Connection: close}; 0 never */
    FencingTestServer(int closeEvery) throws IOException {
        this.closeEvery = closeEvery;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    int pathsWritten() {
        return fences.size();
    }

    private void handle(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        long n = requests.incrementAndGet();
        long token = Long.parseLong(exchange.getRequestHeaders().getFirst("Fencing-Token"));
        long fence = fences.merge(exchange.getRequestURI().getPath(), token, Math::max);
        int status = token < fence ? 412 : 201;
        if (status == 412) {
            refused.incrementAndGet();
        }
        if (closeEvery > 0 && n % closeEvery == 0) {
            exchange.getResponseHeaders().set("Connection", "close");
        }
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
