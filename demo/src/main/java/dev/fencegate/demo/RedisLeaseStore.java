package dev.fencegate.demo;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A lease store as teams run it: a Redis primary with one replica, leases taken with
 * {@code SET NX PX} and tokens drawn with {@code INCR}. The demo cuts the replica off, lets the
 * primary acknowledge a grant, kills the primary and promotes the replica: the grant is gone.
 */
public final class RedisLeaseStore implements AutoCloseable {

    private final List<Process> servers = new ArrayList<>();
    private final Path directory;
    private final int primaryPort;
    private final int replicaPort;
    private int current;

    private RedisLeaseStore(Path directory, int primaryPort, int replicaPort) {
        this.directory = directory;
        this.primaryPort = primaryPort;
        this.replicaPort = replicaPort;
        this.current = primaryPort;
    }

    /** Whether this machine can run the story: redis-server on the PATH. */
    public static boolean available() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, "redis-server"))) {
                return true;
            }
        }
        return false;
    }

    public static RedisLeaseStore start() throws IOException, InterruptedException {
        RedisLeaseStore store = new RedisLeaseStore(Files.createTempDirectory("fencegate-demo-redis"), freePort(), freePort());
        try {
            store.servers.add(store.server(store.primaryPort));
            store.servers.add(store.server(store.replicaPort, "--replicaof", "127.0.0.1", Integer.toString(store.primaryPort)));
            store.awaitReplicaInSync();
            return store;
        } catch (IOException | InterruptedException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    public int primaryPort() {
        return primaryPort;
    }

    public int replicaPort() {
        return replicaPort;
    }

    /** Takes the lease for {@code worker} if it is free; returns the fencing token granted, or -1. */
    public long acquire(String lease, String worker, Duration ttl) throws IOException {
        try (RespClient redis = new RespClient(current)) {
            Object taken = redis.call("SET", "lease:" + lease, worker, "NX", "PX", Long.toString(ttl.toMillis()));
            if (!"OK".equals(taken)) {
                return -1;
            }
            return (Long) redis.call("INCR", "token:" + lease);
        }
    }

    /** The lease runs out, as its PX would make it, and the replica has seen it go. */
    public void expire(String lease) throws IOException {
        try (RespClient redis = new RespClient(current)) {
            redis.call("DEL", "lease:" + lease);
            redis.call("WAIT", "1", "2000");
        }
    }

    /** The replica stops following the primary: from now on what the primary acknowledges exists only there. */
    public void cutReplicaOff() throws IOException {
        try (RespClient replica = new RespClient(replicaPort)) {
            replica.call("REPLICAOF", "NO", "ONE");
        }
    }

    /** The primary dies and the replica is promoted; clients follow it. */
    public void failOver() throws InterruptedException {
        servers.get(0).destroyForcibly().waitFor();
        current = replicaPort;
    }

    private void awaitReplicaInSync() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            try (RespClient replica = new RespClient(replicaPort)) {
                String info = (String) replica.call("INFO", "replication");
                if (info.contains("master_link_status:up")) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new IOException("the Redis replica on port " + replicaPort + " did not sync with its primary in 10 s");
    }

    private Process server(int port, String... extra) throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", directory.toString(), "--logfile", ""));
        command.addAll(List.of(extra));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(directory.resolve("redis-" + port + ".log").toFile()).start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Stops both servers and deletes their folder (logs, and whatever they wrote there). */
    @Override
    public void close() {
        servers.forEach(Process::destroyForcibly);
        try {
            for (Process server : servers) {
                server.waitFor(5, TimeUnit.SECONDS);
            }
            try (Stream<Path> files = Files.walk(directory)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            System.err.println("could not delete " + directory + ": " + e.getMessage());
        }
    }
}
