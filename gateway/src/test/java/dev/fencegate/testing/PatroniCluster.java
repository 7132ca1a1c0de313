package dev.fencegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * A real Patroni cluster on loopback: one etcd (Debian's etcd-server) and PostgreSQL 15 nodes
 * under Patroni (Debian's patroni), in synchronous mode, data under a temp directory. The ttl is
 * short so that a failover takes seconds. Run as root, Patroni and PostgreSQL run as
 * {@code postgres}, since PostgreSQL refuses root. Where etcd, Patroni or PostgreSQL 15 is not
 * installed, tests using it are skipped, unless FENCEGATE_REQUIRE_PATRONI is set (CI sets it):
 * then their absence fails them.
 */
public final class PatroniCluster implements AutoCloseable {

    public static final String REQUIRE_VARIABLE = "FENCEGATE_REQUIRE_PATRONI";
    private static final Path ETCD = Path.of("/usr/bin/etcd");
    private static final Path PATRONI = Path.of("/usr/bin/patroni");
    private static final Path POSTGRES_BIN = Path.of("/usr/lib/postgresql/15/bin");
    /**
     * Leader key ttl, Patroni's loop and its etcd retry timeout, in seconds: a dead primary's key
     * expires within the ttl; loop_wait + 2 retry_timeout stays within it, so a slow loop or etcd
     * call does not cost a live primary its key.
     */
    private static final int TTL_SECONDS = 6;
    private static final int LOOP_WAIT_SECONDS = 1;
    private static final int RETRY_TIMEOUT_SECONDS = 2;

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /** One PostgreSQL node and the Patroni that runs it. */
    public record Node(String name, int port, int apiPort, Path directory, Process patroni) {

        /** A JDBC URL to this node alone, whatever its role. */
        public String jdbcUrl() {
            return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        }

        /** Whether Patroni's REST API answers 200 on {@code check} ({@code /primary}, {@code /sync}, {@code /replica}). */
        boolean answers(String check) {
            return answersOk("http://127.0.0.1:" + apiPort + check);
        }

        Path dataDirectory() {
            return directory.resolve("data");
        }
    }

    private final Path directory;
    private final int etcdPort;
    private final List<Node> nodes = new ArrayList<>();
    private Process etcd;

    private PatroniCluster(Path directory, int etcdPort) {
        this.directory = directory;
        this.etcdPort = etcdPort;
    }

    /** Starts etcd and {@code size} nodes, and returns once a primary has a synchronous standby and every node runs. */
    public static PatroniCluster start(int size) {
        for (Path binary : List.of(ETCD, PATRONI, POSTGRES_BIN.resolve("postgres"))) {
            WebDavProcess.requireInstalled(binary, REQUIRE_VARIABLE);
        }
        PatroniCluster cluster;
        try {
            Path directory = Files.createTempDirectory("fencegate-patroni");
            // PostgreSQL, run as postgres, must reach its data directory through this one.
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
            cluster = new PatroniCluster(directory, WebDavProcess.freePort());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            cluster.startEtcd();
            for (int i = 1; i <= size; i++) {
                cluster.startNode("pg" + i);
            }
            cluster.awaitHealthy(Duration.ofSeconds(60));
            return cluster;
        } catch (IOException | RuntimeException | Error e) {
            String logs = cluster.logs();
            cluster.close();
            throw new IllegalStateException("the Patroni cluster did not start:\n" + logs, e);
        }
    }

    /** A multi-host JDBC URL to every node, keeping only a writable primary, as an operator would give the gateway. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + nodes.stream().map(node -> "127.0.0.1:" + node.port()).collect(Collectors.joining(","))
                + "/postgres?targetServerType=primary";
    }

    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /** The node Patroni runs as primary with the leader lock, if any. */
    public Optional<Node> primary() {
        return nodes.stream().filter(node -> node.patroni().isAlive() && node.answers("/primary")).findFirst();
    }

    /** The node Patroni names synchronous standby and that runs as a replica, if any. */
    public Optional<Node> synchronousStandby() {
        return nodes.stream().filter(node -> node.patroni().isAlive() && node.answers("/sync")).findFirst();
    }

    /**
     * SIGKILL to the node's Patroni and to its PostgreSQL, postmaster and children: no shutdown, no
     * demotion, no release of the leader key; the other nodes learn of it when the key expires.
     */
    public void kill(Node node) {
        List<ProcessHandle> processes = processes(node);
        processes.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle process : processes) {
            if (!awaitGone(process)) {
                throw new IllegalStateException("process " + process.pid() + " of " + node.name() + " still runs 10 s after SIGKILL");
            }
        }
    }

    /** Patroni's and PostgreSQL's output of every node, for a failure message. */
    public String logs() {
        StringBuilder logs = new StringBuilder();
        for (Node node : nodes) {
            logs.append("--- ").append(node.name()).append('\n').append(tail(node.directory().resolve("patroni.log")));
        }
        return logs.append("--- etcd\n").append(tail(directory.resolve("etcd.log"))).toString();
    }

    private void startEtcd() throws IOException {
        String client = "http://127.0.0.1:" + etcdPort;
        String peer = "http://127.0.0.1:" + WebDavProcess.freePort();
        etcd = new ProcessBuilder(ETCD.toString(), "--name", "fencegate", "--data-dir", directory.resolve("etcd").toString(),
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "fencegate=" + peer, "--initial-cluster-state", "new", "--log-level", "warn")
                .redirectErrorStream(true).redirectOutput(directory.resolve("etcd.log").toFile()).start();
        Process started = etcd;
        Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
        Awaitility.await("etcd answering on " + etcdPort).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> !started.isAlive() || answersOk(client + "/health"));
        if (!started.isAlive()) {
            throw new IllegalStateException("etcd exited with " + started.exitValue());
        }
    }

    private void startNode(String name) throws IOException {
        Path directory = Files.createDirectory(this.directory.resolve(name));
        int port = WebDavProcess.freePort();
        int apiPort = WebDavProcess.freePort();
        Path config = directory.resolve("patroni.yml");
        Files.writeString(config, config(name, directory, port, apiPort, etcdPort));
        boolean root = "root".equals(System.getProperty("user.name"));
        List<String> command = new ArrayList<>();
        if (root) {
            UserPrincipal postgres = directory.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(directory, postgres);
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.addAll(List.of(PATRONI.toString(), config.toString()));
        Process patroni = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(directory.resolve("patroni.log").toFile()).start();
        Node node = new Node(name, port, apiPort, directory, patroni);
        nodes.add(node);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> processes(node).forEach(ProcessHandle::destroyForcibly)));
    }

    /**
     * synchronous_mode without strict, as the README's trial ran: a new primary empties
     * synchronous_standby_names until a standby reattaches, which is what the gateway's
     * --require-sync-standby is for. fsync and synchronous_commit stay on: the gateway's durability
     * guard refuses anything less.
     */
    private static String config(String name, Path directory, int port, int apiPort, int etcdPort) {
        return """
                scope: fencegate
                name: %1$s
                log:
                  level: INFO
                restapi:
                  listen: 127.0.0.1:%4$d
                  connect_address: 127.0.0.1:%4$d
                etcd3:
                  hosts: 127.0.0.1:%5$d
                bootstrap:
                  dcs:
                    ttl: %6$d
                    loop_wait: %7$d
                    retry_timeout: %8$d
                    synchronous_mode: true
                    postgresql:
                      use_pg_rewind: false
                      parameters:
                        synchronous_commit: 'on'
                        max_connections: 30
                        shared_buffers: 16MB
                  initdb:
                  - encoding: UTF8
                postgresql:
                  listen: 127.0.0.1:%3$d
                  connect_address: 127.0.0.1:%3$d
                  data_dir: %2$s/data
                  bin_dir: %9$s
                  pgpass: %2$s/pgpass
                  pg_hba:
                  - local all all trust
                  - host all all 127.0.0.1/32 trust
                  - host replication all 127.0.0.1/32 trust
                  authentication:
                    superuser:
                      username: postgres
                      password: postgres
                    replication:
                      username: replicator
                      password: replicator
                  parameters:
                    unix_socket_directories: '%2$s'
                watchdog:
                  mode: 'off'
                """.formatted(name, directory, port, apiPort, etcdPort, TTL_SECONDS, LOOP_WAIT_SECONDS, RETRY_TIMEOUT_SECONDS,
                POSTGRES_BIN);
    }

    private void awaitHealthy(Duration bound) {
        Awaitility.await("a primary, a synchronous standby and " + nodes.size() + " nodes running").atMost(bound)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    for (Node node : nodes) {
                        if (!node.patroni().isAlive()) {
                            throw new IllegalStateException(node.name() + "'s Patroni exited with " + node.patroni().exitValue());
                        }
                    }
                    long replicas = nodes.stream().filter(node -> node.answers("/replica")).count();
                    return primary().isPresent() && synchronousStandby().isPresent() && replicas == nodes.size() - 1;
                });
    }

    /** The node's postmaster, if running: the pid file outlives a killed one, and its pid may be another process's by now. */
    private static Optional<ProcessHandle> postmaster(Node node) {
        Path pidFile = node.dataDirectory().resolve("postmaster.pid");
        try {
            String pid = Files.readAllLines(pidFile).get(0).strip();
            return ProcessHandle.of(Long.parseLong(pid)).filter(process -> process.info().commandLine()
                    .filter(line -> line.contains(node.dataDirectory().toString())).isPresent());
        } catch (IOException | IndexOutOfBoundsException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The node's Patroni and what it runs, and its postmaster with the postmaster's children. */
    private static List<ProcessHandle> processes(Node node) {
        List<ProcessHandle> processes = new ArrayList<>();
        processes.add(node.patroni().toHandle());
        node.patroni().toHandle().descendants().forEach(processes::add);
        // Patroni starts the postmaster detached (as pg_ctl does), so it is nobody's descendant here.
        postmaster(node).ifPresent(postmaster -> {
            processes.add(postmaster);
            postmaster.descendants().forEach(processes::add);
        });
        return processes;
    }

    private static boolean answersOk(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())) + "\n";
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")\n";
        }
    }

    /** Kills every node and etcd, waits for them to be gone, and deletes the data. */
    @Override
    public void close() {
        for (Node node : nodes) {
            processes(node).forEach(ProcessHandle::destroyForcibly);
        }
        if (etcd != null) {
            etcd.destroyForcibly();
            awaitGone(etcd.toHandle());
        }
        // A postmaster that Patroni was starting as it was killed writes its pid file late: look again.
        for (Node node : nodes) {
            for (ProcessHandle process : processes(node)) {
                process.destroyForcibly();
                awaitGone(process);
            }
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    /** Whether {@code process} has exited, waiting up to 10 s. */
    private static boolean awaitGone(ProcessHandle process) {
        try {
            process.onExit().get(10, TimeUnit.SECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        } catch (ExecutionException | TimeoutException e) {
            return !process.isAlive();
        }
    }
}
