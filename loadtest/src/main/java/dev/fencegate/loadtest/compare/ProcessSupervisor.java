package dev.fencegate.loadtest.compare;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Owns every process the runner starts and stops them all at the end, also when the JVM is
 * interrupted (Ctrl-C) or a run fails, so no target outlives the comparison.
 */
final class ProcessSupervisor implements AutoCloseable {
    private static final long GRACE_MILLIS = 5_000;

    private final List<ManagedProcess> processes = new ArrayList<>();
    private final List<Runnable> cleanups = new ArrayList<>();
    private final Thread hook = new Thread(this::stopAll, "stop-compare-targets");

    ProcessSupervisor() {
        Runtime.getRuntime().addShutdownHook(hook);
    }

    synchronized ManagedProcess start(String name, List<String> command, Path log) {
        return start(name, command, Map.of(), log);
    }

    synchronized ManagedProcess start(String name, List<String> command, Map<String, String> environment, Path log) {
        ManagedProcess process = ManagedProcess.start(name, command, environment, log);
        processes.add(process);
        return process;
    }

    /** Runs after every process has stopped, on close or at JVM exit: temp dirs, for one. */
    synchronized void afterStop(Runnable cleanup) {
        cleanups.add(cleanup);
    }

    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or has run: nothing left to remove.
        }
    }

    private synchronized void stopAll() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            try {
                processes.get(i).stop(GRACE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                processes.get(i).kill();
            }
        }
        processes.clear();
        cleanups.forEach(Runnable::run);
        cleanups.clear();
    }
}
