package dev.fencegate.loadtest.compare;

import dev.fencegate.loadtest.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Command lines of the target processes. */
final class TargetCommands {
    private final CompareSettings settings;
    private final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    TargetCommands(CompareSettings settings) {
        this.settings = settings;
    }

    List<String> discardStore(int port) {
        List<String> command = new ArrayList<>(List.of(java, "-jar", settings.storeJar().toAbsolutePath().toString(), "store",
                "--listen", "127.0.0.1:" + port, "--discard"));
        if (settings.storeDelayMs() > 0) {
            command.addAll(List.of("--delay-ms", Integer.toString(settings.storeDelayMs())));
        }
        return command;
    }

    List<String> gateway(int listen, int admin, int storePort) {
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + settings.gatewayHeap(), "-jar", jar(), "serve",
                "--listen", "127.0.0.1:" + listen,
                "--admin-listen", "127.0.0.1:" + admin,
                "--upstream", "http://127.0.0.1:" + storePort,
                "--db-url", settings.dbUrl(),
                "--db-user", settings.dbUser()));
        if (settings.workload() == Workload.JOB_OBJECTS && !settings.reads()) {
            // Fences named by job live apart from the per-object ones of the other workloads: one
            // fence database holds fences of one naming (a gateway of another refuses writes).
            command.addAll(List.of("--scopes", Target.JOB_SCOPES, "--db-schema", Target.JOB_SCOPES_SCHEMA));
        }
        return command;
    }

    /** The password goes by environment, where ps does not show it. */
    Map<String, String> gatewayEnvironment() {
        return settings.dbPassword().isEmpty() ? Map.of() : Map.of("FENCEGATE_DB_PASSWORD", settings.dbPassword());
    }

    List<String> nginx(NginxBinary nginx, Path dir, Path errorLog) {
        // -e: nginx opens its error log before reading the config; keep even that one out of /var/log.
        return List.of(nginx.path().toString(), "-p", dir.toString(), "-c", dir.resolve("nginx.conf").toString(),
                "-e", errorLog.toString(), "-g", "daemon off;");
    }

    static boolean runningAsRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private String jar() {
        return settings.gatewayJar().toAbsolutePath().toString();
    }
}
