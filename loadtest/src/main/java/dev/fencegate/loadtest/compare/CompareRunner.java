package dev.fencegate.loadtest.compare;

import dev.fencegate.loadtest.LoadGenerator;
import dev.fencegate.loadtest.LoadSettings;
import dev.fencegate.loadtest.Measurement;
import dev.fencegate.loadtest.RunResult;
import dev.fencegate.loadtest.TokenBook;
import dev.fencegate.loadtest.Workload;
import dev.fencegate.loadtest.report.Background;
import dev.fencegate.loadtest.report.GatewayCost;
import dev.fencegate.loadtest.report.LatencySeries;
import dev.fencegate.loadtest.report.Report;
import dev.fencegate.loadtest.report.ReportFiles;
import dev.fencegate.loadtest.report.RunRecord;
import dev.fencegate.loadtest.report.Summaries;
import dev.fencegate.loadtest.report.TargetLabel;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Runs the standard comparison: saturation of every target, then latency at fixed rates. */
final class CompareRunner {
    private final CompareSettings settings;
    private final PrintStream out;
    private final List<RunRecord> runs = new ArrayList<>();
    private final LatencySeries series = new LatencySeries();
    private final ProcStats proc = ProcStats.load();
    /** Per gateway target, its CPU and its JIT compiler threads' CPU over its measured saturation runs. */
    private final Map<String, double[]> measuredJit = new LinkedHashMap<>();
    /**
     * One first token for the whole comparison, and one token book per target kept from run to
     * run: priming raises each resource's fence once, a measured same-token write carries its
     * resource's current token, a raise goes one above the last raise of any earlier run, and no
     * run writes an object another run created.
     */
    private final long tokenBase = LoadSettings.tokenBaseFromClock();
    private final Map<String, TokenBook> books = new HashMap<>();
    private int stepsDone;
    private int stepsPlanned;

    CompareRunner(CompareSettings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    Report run() throws InterruptedException, IOException {
        for (Path jar : List.of(settings.gatewayJar(), settings.storeJar())) {
            if (!Files.isRegularFile(jar)) {
                throw new CompareException(jar + " is missing: run ./mvnw -DskipTests package first");
            }
        }
        String started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
        Optional<NginxBinary> nginx = settings.useNginx() ? NginxBinary.find(settings.nginxCommand()) : Optional.empty();
        List<String> notes = new ArrayList<>();
        if (nginx.isEmpty()) {
            notes.add(settings.useNginx()
                    ? "nginx not found: the WebDAV store and the nginx reference proxy were left out (apt-get install -y nginx)."
                    : "nginx turned off (--no-nginx): the WebDAV store and the nginx reference proxy were left out.");
        }
        Path logs = Files.createDirectories(settings.outDir().resolve("logs"));
        out.println("starting targets; logs in " + logs);
        try (TargetStack stack = TargetStack.start(settings, nginx, logs);
             GatewayMeter meter = new GatewayMeter(settings.countCommits()
                     ? PgCommitCounter.open(settings.dbUrl(), settings.dbUser(), settings.dbPassword())
                     : Optional.empty())) {
            List<Target> targets = stack.targets();
            notes.addAll(prime(targets));
            meter.startBaseline();
            List<RunPlan.Step> saturation = RunPlan.saturation(targets, settings.rounds());
            stepsPlanned = saturation.size() * (1 + settings.fractions().size());
            out.printf("%d targets, about %d runs, %.1f minutes%n", targets.size(), stepsPlanned, estimateMinutes(targets));
            for (RunPlan.Step step : saturation) {
                measure(step, settings.saturation(), meter);
            }
            Map<String, List<Double>> rates = OfferedRates.of(targets, medianSaturation(targets),
                    settings.ratesOf(), settings.fractions());
            List<RunPlan.Step> fixed = RunPlan.fixedRates(targets, settings.rounds(), rates);
            stepsPlanned = saturation.size() + fixed.size();
            for (RunPlan.Step step : fixed) {
                measure(step, settings.fixedRate(), meter);
            }
            meter.finish();
            measuredJit.forEach((target, cpu) -> notes.add(String.format(
                    "%s: its JIT compiler threads took %.1f%% of its CPU over its measured saturation runs.",
                    target, cpu[0] > 0 ? 100 * cpu[1] / cpu[0] : 0)));
            if (!settings.countCommits()) {
                notes.add("Transactions per write were not counted: --quick does not wait for PostgreSQL's late statistics"
                        + " (durable commits per write are the gateway's own count, read at once).");
            } else if (!meter.countsCommits()) {
                notes.add("PostgreSQL statistics were not readable at " + settings.dbUrl() + ": transactions per write are missing.");
            }
            Background background = meter.background().orElse(null);
            String title = settings.reads() || settings.workload() == Workload.SAME_TOKEN ? "Fencegate comparison"
                    : "Fencegate comparison, workload " + settings.workload().cliName();
            Report report = new Report(title, started,
                    new ReportSetup(settings, nginx, rates).describe(), notes, background,
                    Summaries.of(labels(targets), runs, series, background), runs);
            ReportFiles.write(report, settings.outDir());
            return report;
        }
    }

    /**
     * Every target process is loaded, unrecorded, before anything is measured: a JVM that has not
     * compiled its hot paths yet would otherwise be measured against warm native servers. A gateway
     * is loaded until its JIT has settled ({@link Priming}); what that took goes into the notes.
     */
    private List<String> prime(List<Target> targets) throws InterruptedException {
        Duration prime = settings.saturation().warmup().multipliedBy(PRIME_FACTOR);
        out.printf("priming %d targets for %d s each, gateways until their JIT settles (not measured)%n",
                targets.size(), prime.toSeconds());
        List<String> notes = new ArrayList<>();
        for (Target target : targets) {
            LoadSettings load = loadFor(target).withPhases(prime, Duration.ofMillis(500), settings.drain()).atRate(0);
            TokenBook book = books.computeIfAbsent(target.id(), id -> TokenBook.of(load));
            if (target.gateway().isEmpty()) {
                LoadGenerator.run(load, book);
                continue;
            }
            RunningGateway gateway = target.gateway().get();
            long pid = gateway.process().pid();
            Priming priming = new Priming();
            boolean again;
            do {
                double cpu = proc.cpuMillis(pid);
                Map<Long, Double> jit = proc.jitCpuMillis(pid);
                // Read around each run as around a measured one: the admin port's answers go through the
                // same HTTP code as the writes, and code compiled without them in its profile was
                // compiled again in the measured runs.
                gateway.fenceCommits().commits();
                LoadGenerator.run(load, book);
                gateway.fenceCommits().commits();
                again = priming.another(proc.cpuMillis(pid) - cpu, ProcStats.cpuBetween(jit, proc.jitCpuMillis(pid)));
            } while (again);
            String primed = priming.describe(target.name(), prime);
            out.println(primed);
            notes.add(primed);
        }
        return notes;
    }

    private void measure(RunPlan.Step step, Phases phases, GatewayMeter meter) throws InterruptedException {
        Target target = step.target();
        LoadSettings load = loadFor(target)
                .withPhases(phases.warmup(), phases.measured(), settings.drain())
                .atRate(step.offeredRate() == null ? 0 : step.offeredRate());
        int index = runs.size();
        GatewayMeter.Before before = target.gateway().isEmpty() ? null
                : meter.before(target.gateway().get(),
                        (commits, seconds) -> runs.set(index, runs.get(index).withCommits(commits, seconds)));
        Measurement measurement;
        Map<Long, Double> jit = before == null ? Map.of() : proc.jitCpuMillis(before.gateway().process().pid());
        try {
            measurement = LoadGenerator.run(load, books.computeIfAbsent(target.id(), id -> TokenBook.of(load)));
        } catch (IllegalStateException e) {
            throw new CompareException(target.name() + ": " + e.getMessage()
                    + target.gateway().map(g -> "\n" + g.process().obituary()).orElse(""), e);
        }
        double jitMillis = before == null ? 0 : ProcStats.cpuBetween(jit, proc.jitCpuMillis(before.gateway().process().pid()));
        GatewayCost cost = before == null ? null : meter.after(before, measurement.answeredIncludingWarmup());
        if (cost != null && step.offeredRate() == null) {
            double[] sums = measuredJit.computeIfAbsent(target.name(), name -> new double[2]);
            sums[0] += cost.gatewayCpuMillis();
            sums[1] += jitMillis;
        }
        series.add(target.name(), step.offeredRate(), measurement.latencyMicros());
        RunResult result = measurement.result();
        runs.add(new RunRecord(target.name(), step.offeredRate() == null ? RunRecord.SATURATION : RunRecord.FIXED_RATE,
                step.round(), step.offeredRate(), result, cost));
        out.printf("[%d/%d] round %d, %s, %s: %,.0f req/s, p50 %.3f ms, p99 %.3f ms, errors %d%n",
                ++stepsDone, stepsPlanned, step.round(), target.name(),
                step.offeredRate() == null ? "saturation" : String.format("%,.0f req/s offered", step.offeredRate()),
                result.throughput(), result.latencyMs().p50(), result.latencyMs().p99(), result.counts().errors());
    }

    private static final int PRIME_FACTOR = 4;

    private LoadSettings loadFor(Target target) {
        return LoadSettings.defaults(target.url())
                .withLoad(settings.bodySize(), settings.connections(), settings.resources())
                .withPattern(settings.workload().pattern())
                .withReads(settings.reads())
                .aimedAt(target.url(), target.pathPrefix())
                .withTokenBase(tokenBase);
    }

    private Map<String, Double> medianSaturation(List<Target> targets) {
        Map<String, Double> medians = new HashMap<>();
        for (Target target : targets) {
            double[] sorted = runs.stream()
                    .filter(run -> run.target().equals(target.name()) && run.offeredRate() == null)
                    .mapToDouble(run -> run.result().throughput()).sorted().toArray();
            // The lower median of an even count: the fixed rates err on the side the target can carry.
            medians.put(target.id(), sorted.length == 0 ? 0 : sorted[(sorted.length - 1) / 2]);
        }
        return medians;
    }

    /** Run time plus about half a second per run to connect and drain, plus the commit-count waits. */
    private double estimateMinutes(List<Target> targets) {
        double perCycle = settings.saturation().total().toMillis()
                + settings.fractions().size() * (double) settings.fixedRate().total().toMillis()
                + (1 + settings.fractions().size()) * 500.0;
        double settling = settings.countCommits() ? 2 * PgCommitCounter.SETTLE_MILLIS : 0;
        return (targets.size() * settings.rounds() * perCycle + settling) / 60_000.0;
    }

    private static List<TargetLabel> labels(List<Target> targets) {
        return targets.stream().map(t -> new TargetLabel(t.name(), t.store(), t.route().label())).toList();
    }
}
