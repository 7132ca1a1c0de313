package dev.fencegate.loadtest.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A target process started by the runner, with its output in a log file. */
final class ManagedProcess {
    private final String name;
    private final Process process;
    private final Path log;

    private ManagedProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static ManagedProcess start(String name, List<String> command, Map<String, String> environment, Path log) {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            return new ManagedProcess(name, process, log);
        } catch (IOException e) {
            throw new CompareException("cannot start " + name + " (" + String.join(" ", command) + "): " + e.getMessage(), e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Why the process is gone, with the end of its log, for an error message. */
    String obituary() {
        String exit = process.isAlive() ? "still running" : "exited with code " + process.exitValue();
        return name + " " + exit + "; last lines of " + log + ":\n" + logTail(20);
    }

    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** SIGTERM, then SIGKILL after the grace period; children (nginx workers) go the same way. */
    void stop(long graceMillis) throws InterruptedException {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        if (!process.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(graceMillis, TimeUnit.MILLISECONDS);
        }
        children.forEach(ProcessHandle::destroyForcibly);
    }

    void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
