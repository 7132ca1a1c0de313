package dev.fencegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real WebDAV server's process, serving {@code root} under its own temp directory on a loopback
 * port: what nginx's and Apache httpd's rigs share. Where the server is not installed, tests
 * using it are skipped, unless its requirement variable is set (CI sets it): then its absence
 * fails them.
 */
final class WebDavProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path directory;
    private final int port;

    private WebDavProcess(String name, Process process, Path directory, int port) {
        this.name = name;
        this.process = process;
        this.directory = directory;
        this.port = port;
    }

    /** Skips the test, or fails it when {@code requireVariable} is set, unless {@code binary} is installed. */
    static void requireInstalled(Path binary, String requireVariable) {
        if (!Files.isExecutable(binary)) {
            if (System.getenv(requireVariable) != null) {
                throw new IllegalStateException(binary + " is missing and " + requireVariable + " is set");
            }
            Assumptions.abort(binary + " is not installed (set " + requireVariable + " to make that a failure)");
        }
    }

    /** A temp directory with an empty {@code root} in it. */
    static Path directory(String prefix) throws IOException {
        Path directory = Files.createTempDirectory(prefix);
        Files.createDirectories(directory.resolve("root"));
        return directory;
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Starts {@code command}, its output into {@code stdout.log}, and waits until it listens; {@code logs} are shown if it exits. */
    static WebDavProcess start(String name, List<String> command, Path directory, int port, List<String> logs) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(directory.resolve("stdout.log").toFile()).start();
            WebDavProcess server = new WebDavProcess(name, process, directory, port);
            server.awaitListening(logs);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return port;
    }

    /** The file the store keeps the object {@code path} ({@code /b/k}) in. */
    Path file(String path) {
        return directory.resolve("root").resolve(path.substring(1));
    }

    /** Every file the store holds, by its path under the root ({@code /b/k}), with its content. */
    Map<String, String> objects() {
        Path root = directory.resolve("root");
        Map<String, String> objects = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                objects.put("/" + root.relativize(file).toString().replace('\\', '/'), new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return objects;
    }

    @Override
    public void close() {
        // A server started through runuser, or one that forks workers, leaves them behind otherwise.
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        children.forEach(ProcessHandle::destroyForcibly);
        delete(directory);
    }

    /** Deletes {@code directory} and everything in it, as far as it can. */
    static void delete(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    private void awaitListening(List<String> logs) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                StringBuilder shown = new StringBuilder();
                for (String log : logs) {
                    Path file = directory.resolve(log);
                    if (Files.exists(file)) {
                        shown.append(Files.readString(file));
                    }
                }
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ": " + shown);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        close();
        throw new IllegalStateException(name + " did not listen on " + port + " within 20 s");
    }
}
