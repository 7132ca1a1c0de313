package dev.fencegate.loadtest.compare;

import dev.fencegate.loadtest.Workload;
import dev.fencegate.loadtest.report.MarkdownReport;
import dev.fencegate.loadtest.report.Report;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The {@code compare} subcommand: options in, report folder out. */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Run the standard comparison (direct, via nginx, via the gateway) and write a report.")
public final class CompareCommand implements Callable<Integer> {

    @Option(names = "--reads", description = "Send GETs without a token instead of fenced writes: the cost of the unfenced path")
    boolean reads;

    @Option(names = "--quick", description = "One or two minutes: one round, short runs, no transaction counting")
    boolean quick;

    @Option(names = "--rounds", description = "Rounds of the whole cycle (default: 2, or 1 with --quick)")
    Integer rounds;

    @Option(names = "--out", description = "Report folder (default: loadtest/reports/<timestamp>)")
    Path out;

    @Option(names = "--gateway-jar", defaultValue = "gateway/target/fencegate.jar", description = "(default: ${DEFAULT-VALUE})")
    Path gatewayJar;

    @Option(names = "--store-jar", defaultValue = "demo/target/fencegate-demo.jar",
            description = "The jar whose `store` command runs the do-nothing store (default: ${DEFAULT-VALUE})")
    Path storeJar;

    @Option(names = "--store-delay-ms", defaultValue = "0", description = "Make the do-nothing store take this long per request")
    int storeDelayMs;

    @Option(names = "--connections", defaultValue = "32", description = "(default: ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "--body-size", defaultValue = "4096", description = "(default: ${DEFAULT-VALUE})")
    int bodySize;

    @Option(names = "--resources",
            description = "Resources per target, overwritten in turn (default: 1024; 1000 with --workload raises)")
    Integer resources;

    @Option(names = "--workload", defaultValue = "same-token", converter = Workload.Converter.class,
            description = "same-token, new-objects, raises, mixed (90%% same token, 9%% new objects, 1%% raises) or"
                    + " job-objects (new objects under job scopes) (default: ${DEFAULT-VALUE})")
    Workload workload;

    @Option(names = "--fractions", defaultValue = "0.25,0.5,0.75", split = ",",
            description = "Fixed rates as fractions of a saturation throughput (default: ${DEFAULT-VALUE})")
    List<Double> fractions;

    @Option(names = "--rates-of", defaultValue = "SLOWEST",
            description = "SLOWEST: of the slowest target per store; DIRECT: of the direct store (default: ${DEFAULT-VALUE})")
    RateBasis ratesOf;

    @Option(names = "--db-url", defaultValue = "jdbc:postgresql://127.0.0.1:5432/test", description = "(default: ${DEFAULT-VALUE})")
    String dbUrl;

    @Option(names = "--db-user", defaultValue = "postgres", description = "(default: ${DEFAULT-VALUE})")
    String dbUser;

    @Option(names = "--db-password", defaultValue = "", description = "(default: none)")
    String dbPassword;

    @Option(names = "--no-nginx", description = "Leave out the WebDAV store and the nginx proxy")
    boolean noNginx;

    @Option(names = "--nginx", defaultValue = "nginx", description = "nginx executable (default: ${DEFAULT-VALUE})")
    String nginxCommand;

    @Option(names = "--nginx-workers", defaultValue = "auto", description = "worker_processes (default: ${DEFAULT-VALUE})")
    String nginxWorkers;

    @Option(names = "--gateway-heap", defaultValue = "256m", description = "(default: ${DEFAULT-VALUE})")
    String gatewayHeap;

    @Override
    public Integer call() throws Exception {
        Path outDir = out != null ? out : Path.of("loadtest", "reports",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        CompareSettings settings = new CompareSettings(gatewayJar, storeJar, outDir,
                rounds != null ? rounds : quick ? 1 : 2,
                quick ? Phases.ofSeconds(1, 2) : Phases.ofSeconds(2, 5),
                quick ? Phases.ofSeconds(0.5, 2) : Phases.ofSeconds(1, 4),
                Duration.ofSeconds(quick ? 1 : 2),
                fractions, ratesOf, connections, bodySize, resources != null ? resources : workload.defaultResources(),
                storeDelayMs, dbUrl, dbUser, dbPassword,
                !quick, !noNginx, nginxCommand, nginxWorkers, gatewayHeap, reads, workload);
        try {
            Report report = new CompareRunner(settings, System.out).run();
            System.out.println();
            System.out.println(MarkdownReport.render(report));
            System.out.println("report written to " + outDir.toAbsolutePath());
            return 0;
        } catch (CompareException e) {
            System.err.println("compare: " + e.getMessage());
            return 2;
        }
    }
}
