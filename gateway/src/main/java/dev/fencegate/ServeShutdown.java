package dev.fencegate;

import java.util.function.Consumer;

/**
 * The hand-over between {@code serve}'s start and its shutdown hook. The hook is registered before
 * the start, since the data port serves before the start returns: the start then waits up to
 * --upstream-connect-timeout for the store. A SIGTERM or SIGINT during the start waits for it to
 * end (it is bounded by that timeout), then stops what it started with the drain, where without a
 * hook in place the process would end with requests in flight. The hook does not interrupt the
 * start, which could leave a half-started gateway nobody closes. A start that fails leaves the
 * hook nothing to stop, and the exit status as the failure set it.
 */
final class ServeShutdown {

    /** The start's outcome as the hook sees it. */
    private enum State { STARTING, RUNNING, FAILED, STOPPED }

    /** A start that may fail; what it returns is what the hook stops. */
    interface Start<G extends AutoCloseable> {
        G start() throws InterruptedException;
    }

    private final Runnable exit;
    private final Object lock = new Object();
    private State state = State.STARTING;
    private AutoCloseable started;

    private ServeShutdown(Runnable exit) {
        this.exit = exit;
    }

    /**
     * Hands the hook to {@code hooks} ({@code Runtime::addShutdownHook} in serve) at once, so that
     * nothing can start before it is in place.
     *
     * @param exit run by the hook once it has stopped a gateway: in serve, the log's flush and a halt with 0
     */
    static ServeShutdown register(Consumer<Thread> hooks, Runnable exit) {
        ServeShutdown shutdown = new ServeShutdown(exit);
        hooks.accept(new Thread(shutdown::stop, "fencegate-shutdown"));
        return shutdown;
    }

    /** Runs the start and hands its gateway, or its failure, to the hook. */
    <G extends AutoCloseable> G start(Start<G> start) throws InterruptedException {
        G gateway = null;
        try {
            gateway = start.start();
            return gateway;
        } finally {
            synchronized (lock) {
                state = gateway == null ? State.FAILED : State.RUNNING;
                started = gateway;
                lock.notifyAll();
            }
        }
    }

    /** What the hook runs: waits for the start to end, then stops what it started and exits. */
    void stop() {
        AutoCloseable gateway;
        synchronized (lock) {
            boolean interrupted = false;
            while (state == State.STARTING) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (state != State.RUNNING) {
                return;
            }
            state = State.STOPPED;
            gateway = started;
        }
        try {
            gateway.close();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the gateway failed", e);
        }
        exit.run();
    }
}
