package dev.fencegate.loadtest.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/** CPU time and resident memory of processes, read from /proc (Linux only). */
final class ProcStats {
    private final double millisPerTick;

    private ProcStats(long ticksPerSecond) {
        this.millisPerTick = 1000.0 / ticksPerSecond;
    }

    static ProcStats load() {
        return new ProcStats(clockTicksPerSecond());
    }

    /** utime + stime in milliseconds, or 0 if the process is gone. */
    double cpuMillis(long pid) {
        try {
            return ticksMillis(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * CPU milliseconds of a HotSpot JVM's JIT compiler threads ({@code C1 CompilerThre...} and
     * {@code C2 CompilerThre...}, as the kernel shortens their names), by thread id; empty if the
     * process is gone. A compiler thread the JVM retired in between takes its time with it.
     */
    Map<Long, Double> jitCpuMillis(long pid) {
        Map<Long, Double> byThread = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
                        byThread.put(Long.parseLong(task.getFileName().toString()), ticksMillis(Files.readString(task.resolve("stat"))));
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process is gone: what was read so far, or nothing
        }
        return byThread;
    }

    long rssKb(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                    .filter(line -> line.startsWith("VmRSS:"))
                    .mapToLong(line -> Long.parseLong(line.replaceAll("[^0-9]", "")))
                    .findFirst().orElse(0);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** utime + stime of a {@code stat} line, in milliseconds. */
    private double ticksMillis(String stat) {
        // The command name in parentheses may contain spaces; the fields after it do not.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * millisPerTick;
    }

    /** CPU milliseconds of every PostgreSQL server process ({@code pgrep -f 'postgres:'}), by pid. */
    Map<Long, Double> postgresCpuMillis() {
        Map<Long, Double> byPid = new HashMap<>();
        try {
            Process pgrep = new ProcessBuilder("pgrep", "-f", "postgres:").redirectErrorStream(true).start();
            String out = new String(pgrep.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            pgrep.waitFor();
            for (String line : out.split("\n")) {
                if (line.matches("[0-9]+")) {
                    long pid = Long.parseLong(line);
                    byPid.put(pid, cpuMillis(pid));
                }
            }
        } catch (IOException e) {
            return byPid;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return byPid;
    }

    /** CPU spent between two samples; a process or thread that appeared in between counts from zero. */
    static double cpuBetween(Map<Long, Double> before, Map<Long, Double> after) {
        return after.entrySet().stream()
                .mapToDouble(e -> Math.max(0, e.getValue() - before.getOrDefault(e.getKey(), 0.0)))
                .sum();
    }

    private static long clockTicksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").start();
            String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            getconf.waitFor();
            return Long.parseLong(out);
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
