package dev.fencegate.loadtest.compare;

import dev.fencegate.loadtest.LoadSettings;
import dev.fencegate.loadtest.Workload;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** The "how was this measured" lines at the top of the report. */
record ReportSetup(CompareSettings settings, Optional<NginxBinary> nginx, Map<String, List<Double>> rates) {

    Map<String, String> describe() {
        Map<String, String> setup = new LinkedHashMap<>();
        setup.put("machine", Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        setup.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        setup.put("nginx", nginx.map(n -> n.version() + ", worker_processes " + settings.nginxWorkers()).orElse("not used"));
        setup.put("load", (settings.reads() ? "GET without a token (unfenced reads), " : "PUT, " + settings.bodySize() + "-byte bodies, ") + settings.connections()
                + " keep-alive connections, "
                + (!settings.reads() && settings.workload() == Workload.NEW_OBJECTS ? ""
                        : !settings.reads() && settings.workload() == Workload.JOB_OBJECTS
                        ? settings.resources() + " jobs per target (gateway: --scopes " + Target.JOB_SCOPES + "), "
                        : settings.resources() + " resources per target overwritten in turn, ")
                + (settings.reads() ? "" : "workload " + settings.workload().cliName() + ": " + settings.workload().description()
                        + " (one token base and one token book per target for the whole comparison: priming raises each fence once), ")
                + LoadSettings.defaultThreads(settings.connections()) + " client event loop(s), generator in the runner's JVM");
        setup.put("saturation runs", "closed loop, " + phases(settings.saturation()) + ", " + settings.rounds() + " round(s)");
        setup.put("fixed-rate runs", "open loop, latency from the intended send time, " + phases(settings.fixedRate())
                + "; rates " + OfferedRates.describe(settings.ratesOf(), settings.fractions()));
        setup.put("offered rates", rates.entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue().stream().map(r -> String.format("%,.0f", r))
                        .collect(Collectors.joining(", ")) + " req/s")
                .collect(Collectors.joining("; ")));
        setup.put("order", "targets alternate run by run; each round repeats the cycle");
        setup.put("discard store", settings.storeDelayMs() == 0 ? "answers at once"
                : "waits " + settings.storeDelayMs() + " ms per request");
        setup.put("gateway", "java -Xmx" + settings.gatewayHeap() + ", PostgreSQL " + settings.dbUrl());
        return setup;
    }

    private static String phases(Phases phases) {
        return seconds(phases.warmup().toMillis()) + " s warm-up + " + seconds(phases.measured().toMillis()) + " s measured";
    }

    private static String seconds(long millis) {
        return millis % 1000 == 0 ? Long.toString(millis / 1000) : Double.toString(millis / 1000.0);
    }
}
