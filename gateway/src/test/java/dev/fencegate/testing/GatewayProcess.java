package dev.fencegate.testing;

import dev.fencegate.config.DatabaseConfig;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;

/** The packaged gateway jar run as its own process, as an operator would run it. */
public final class GatewayProcess implements AutoCloseable {

    public static final Path JAR = Path.of("target", "fencegate.jar");

    private final Process process;
    private final int port;
    private final int adminPort;
    private final Path log;

    private GatewayProcess(Process process, int port, int adminPort, Path log) {
        this.process = process;
        this.port = port;
        this.adminPort = adminPort;
        this.log = log;
    }

    public static GatewayProcess start(List<String> jvmOptions, int storePort, DatabaseConfig database, String... extra) throws IOException {
        GatewayProcess gateway = launch(jvmOptions, "http://127.0.0.1:" + storePort, database, extra);
        Process process = gateway.process();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !process.isAlive() || gateway.ready());
        } catch (RuntimeException e) {
            gateway.close();
            throw new IllegalStateException("gateway did not become ready:\n" + gateway.output(), e);
        }
        if (!process.isAlive()) {
            throw new IllegalStateException("gateway exited with " + process.exitValue() + ":\n" + gateway.output());
        }
        return gateway;
    }

    /** A gateway process in front of {@code upstream}, not waited for: its start may still be under way. */
    public static GatewayProcess launch(List<String> jvmOptions, String upstream, DatabaseConfig database, String... extra)
            throws IOException {
        int port = freePort();
        int adminPort = freePort();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", JAR.toString(), "serve",
                "--listen", "127.0.0.1:" + port, "--admin-listen", "127.0.0.1:" + adminPort,
                "--upstream", upstream,
                "--db-url", database.url(), "--db-schema", database.schema(), "--db-user", database.user(),
                // As small a pool as the in-process gateways', so the suite fits a busy PostgreSQL.
                "--db-pool-size", Integer.toString(database.poolSize())));
        command.addAll(List.of(extra));
        Path log = Files.createTempFile("fencegate-process", ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // Even a paused one, should the test JVM be stopped before it closes it: SIGKILL ends a stopped process too.
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        return new GatewayProcess(process, port, adminPort, log);
    }

    public int port() {
        return port;
    }

    public Process process() {
        return process;
    }

    public int adminPort() {
        return adminPort;
    }

    /** SIGSTOP: the whole process stops, as in a long GC pause or a suspended VM, its sockets left open. */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        signal("CONT");
    }

    /** SIGKILL: no shutdown hook, no withdrawal of registrations. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    private void signal(String name) {
        if (!process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public boolean ready() {
        return ready(adminPort);
    }

    /** Whether the gateway whose admin port is {@code adminPort} answers {@code /readyz} with 200. */
    public static boolean ready(int adminPort) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/readyz"))
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        // A stopped process would leave SIGTERM pending forever.
        signal("CONT");
        process.destroy();
        try {
            if (!process.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        File file = log.toFile();
        file.deleteOnExit();
    }
}
