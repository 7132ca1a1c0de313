package dev.fencegate.loadtest.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Starts the stores, the reference nginx proxy and the gateways as separate processes, and
 * stops them all on close. Targets come out grouped by store: direct, via gateway, via nginx.
 */
final class TargetStack implements AutoCloseable {
    private static final Duration STORE_START = Duration.ofSeconds(60);
    private static final Duration GATEWAY_START = Duration.ofSeconds(120);

    private record Store(String name, int port, ManagedProcess process) {
    }

    private record Gateway(ManagedProcess process, int port, int adminPort) {
    }

    private final ProcessSupervisor supervisor = new ProcessSupervisor();
    private final Path work;
    private final List<Target> targets = new ArrayList<>();

    private TargetStack(Path work) {
        this.work = work;
        supervisor.afterStop(this::deleteWorkDir);
    }

    static TargetStack start(CompareSettings settings, Optional<NginxBinary> nginx, Path logs)
            throws InterruptedException {
        TargetStack stack;
        try {
            stack = new TargetStack(Files.createTempDirectory("fencegate-compare-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp dir for the targets", e);
        }
        try {
            stack.launch(settings, nginx, logs);
            return stack;
        } catch (RuntimeException | InterruptedException e) {
            stack.close();
            throw e;
        }
    }

    List<Target> targets() {
        return List.copyOf(targets);
    }

    @Override
    public void close() {
        supervisor.close();
    }

    private void launch(CompareSettings settings, Optional<NginxBinary> nginx, Path logs) throws InterruptedException {
        FreePorts ports = FreePorts.reserve(9);
        TargetCommands commands = new TargetCommands(settings);
        List<Store> stores = new ArrayList<>();
        int discardPort = ports.take();
        stores.add(new Store(settings.discardStoreName(), discardPort, supervisor.start("discard store",
                commands.discardStore(discardPort), logs.resolve("discard-store.log"))));
        if (nginx.isPresent()) {
            int webdavPort = ports.take();
            Path dir = nginxDir("webdav");
            Path errorLog = logs.resolve("nginx-webdav.error.log");
            write(dir.resolve("nginx.conf"), NginxConfig.webdavStore(dir, errorLog, webdavPort,
                    settings.nginxWorkers(), TargetCommands.runningAsRoot()));
            stores.add(new Store("webdav", webdavPort, supervisor.start("nginx webdav store",
                    commands.nginx(nginx.get(), dir, errorLog), logs.resolve("nginx-webdav.log"))));
        }
        for (Store store : stores) {
            Readiness.awaitAnyAnswer(store.process(), local(store.port(), "/"), STORE_START);
        }
        Map<String, Integer> proxyPorts = new LinkedHashMap<>();
        Optional<ManagedProcess> proxy = nginx.map(binary -> startProxy(settings, binary, stores, ports, proxyPorts,
                commands, logs));
        Map<String, Gateway> gateways = new LinkedHashMap<>();
        for (Store store : stores) {
            int port = ports.take();
            int adminPort = ports.take();
            ManagedProcess process = supervisor.start("gateway to " + store.name(),
                    commands.gateway(port, adminPort, store.port()), commands.gatewayEnvironment(),
                    logs.resolve("gateway-" + id(store.name()) + ".log"));
            gateways.put(store.name(), new Gateway(process, port, adminPort));
        }
        for (Store store : stores) {
            Gateway gateway = gateways.get(store.name());
            Readiness.awaitOk(gateway.process(), local(gateway.adminPort(), "/readyz"), GATEWAY_START);
            if (proxy.isPresent()) {
                Readiness.awaitAnyAnswer(proxy.get(), local(proxyPorts.get(store.name()), "/"), STORE_START);
            }
            String id = id(store.name());
            targets.add(new Target(id + "-direct", store.name(), Route.DIRECT, local(store.port(), ""), Optional.empty()));
            targets.add(new Target(id + "-gateway", store.name(), Route.GATEWAY, local(gateway.port(), ""),
                    Optional.of(new RunningGateway(gateway.process(),
                            new FenceCommitCounter(local(gateway.adminPort(), "/metrics"))))));
            proxy.ifPresent(p -> targets.add(new Target(id + "-nginx", store.name(), Route.NGINX,
                    local(proxyPorts.get(store.name()), ""), Optional.empty())));
        }
    }

    /** One nginx process with a server per store; fills {@code proxyPorts} by store name. */
    private ManagedProcess startProxy(CompareSettings settings, NginxBinary nginx, List<Store> stores, FreePorts ports,
                                      Map<String, Integer> proxyPorts, TargetCommands commands, Path logs) {
        Map<Integer, Integer> listenToUpstream = new LinkedHashMap<>();
        for (Store store : stores) {
            proxyPorts.put(store.name(), ports.take());
            listenToUpstream.put(proxyPorts.get(store.name()), store.port());
        }
        Path dir = nginxDir("proxy");
        Path errorLog = logs.resolve("nginx-proxy.error.log");
        write(dir.resolve("nginx.conf"), NginxConfig.reverseProxy(dir, errorLog, listenToUpstream,
                settings.nginxWorkers(), TargetCommands.runningAsRoot()));
        return supervisor.start("nginx proxy", commands.nginx(nginx, dir, errorLog), logs.resolve("nginx-proxy.log"));
    }

    private void deleteWorkDir() {
        try (Stream<Path> paths = Files.walk(work)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not remove " + work + ": " + e.getMessage());
        }
    }

    /** A dir for one nginx instance, with the {@code root} folder a WebDAV store writes into. */
    private Path nginxDir(String name) {
        try {
            return Files.createDirectories(work.resolve(name).resolve("root")).getParent();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + work.resolve(name), e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static String id(String store) {
        return store.replaceAll("[^a-zA-Z0-9]+", "-");
    }

    private static URI local(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
