package dev.fencegate.loadtest;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** One load run against one target; prints the result as JSON on stdout. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Send load to one target and print throughput, latency and outcome counts as JSON.",
                "Exits 1 when any measured request ended in an error (a 412 for an intended-stale write is not one)."})
final class RunCommand implements Callable<Integer> {

    enum Mode { FIXED, SATURATE }

    @Option(names = "--url", required = true, description = "Target, e.g. http://127.0.0.1:8080")
    URI url;

    @Option(names = "--method", defaultValue = "PUT", description = "Write method (default: ${DEFAULT-VALUE})")
    String method;

    @Option(names = "--reads", description = "Send GETs without a token instead of writes")
    boolean reads;

    @Option(names = "--body-size", defaultValue = "4096", description = "Write body bytes (default: ${DEFAULT-VALUE})")
    int bodySize;

    @Option(names = "--connections", defaultValue = "32", description = "Keep-alive connections (default: ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "--threads", description = "Event loops (default: one per core)")
    Integer threads;

    @Option(names = "--rate", defaultValue = "0", description = "Requests per second, open loop; 0 saturates (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--mode", defaultValue = "FIXED", description = "FIXED or SATURATE (default: ${DEFAULT-VALUE})")
    Mode mode;

    @Option(names = "--duration", defaultValue = "10", description = "Measured seconds (default: ${DEFAULT-VALUE})")
    double durationSeconds;

    @Option(names = "--warmup", defaultValue = "2", description = "Warm-up seconds, not measured (default: ${DEFAULT-VALUE})")
    double warmupSeconds;

    @Option(names = "--drain", defaultValue = "5", description = "Seconds to wait for the backlog after the window (default: ${DEFAULT-VALUE})")
    double drainSeconds;

    @Option(names = "--timeout", defaultValue = "10", description = "Response timeout seconds (default: ${DEFAULT-VALUE})")
    double timeoutSeconds;

    @Option(names = "--resources", description = "Distinct resources (default: 1024, or the workload's)")
    Integer resources;

    @Option(names = "--prefix", defaultValue = "/loadtest", description = "Path prefix of the resources (default: ${DEFAULT-VALUE})")
    String prefix;

    @Option(names = "--pattern", defaultValue = "STEADY",
            description = "STEADY, BUMPS, STALE, HOT, NEW_OBJECTS, RAISES, MIXED or JOB_OBJECTS (default: ${DEFAULT-VALUE})")
    TokenPattern pattern;

    @Option(names = "--workload", converter = Workload.Converter.class,
            description = "same-token, new-objects, raises, mixed or job-objects (the gateway needs a job scope over"
                    + " <prefix>/<job>/**): sets --pattern and the default --resources")
    Workload workload;

    @Option(names = "--share", defaultValue = "0.1", description = "Share of writes that bump or go stale (default: ${DEFAULT-VALUE})")
    double share;

    @Option(names = "--token-base", description = "First token of every resource (default: from the clock, above earlier runs)")
    Long tokenBase;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Override
    public Integer call() throws Exception {
        LoadSettings settings = new LoadSettings(url, method, bodySize, connections,
                threads == null ? LoadSettings.defaultThreads(connections) : threads,
                seconds(warmupSeconds), seconds(durationSeconds), seconds(drainSeconds), seconds(timeoutSeconds),
                rate, mode == Mode.SATURATE,
                resources != null ? resources : workload != null ? workload.defaultResources() : 1024,
                prefix, workload != null ? workload.pattern() : pattern, share, reads,
                tokenBase == null ? TokenBook.baseFromClock() : tokenBase, seed);
        RunResult result = LoadGenerator.run(settings).result();
        System.out.println(Json.MAPPER.writeValueAsString(result));
        return result.counts().errors() == 0 ? 0 : 1;
    }

    static Duration seconds(double seconds) {
        return Duration.ofNanos(Math.round(seconds * 1e9));
    }
}
