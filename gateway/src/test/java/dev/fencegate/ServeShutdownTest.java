package dev.fencegate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * serve's shutdown hook is in place before the start, whose data port serves while it waits for
 * the store: a SIGTERM then waits for the start to end and stops what it started, with the drain
 * ({@link Gateway#close}), instead of ending the process with requests in flight.
 */
class ServeShutdownTest {

    private final List<Thread> hooks = new ArrayList<>();
    private final AtomicBoolean exited = new AtomicBoolean();
    private final ServeShutdown shutdown = ServeShutdown.register(hooks::add, () -> exited.set(true));
    private final Started gateway = new Started();

    @Test
    void aSigtermDuringTheStartStopsWhatItStartedOnceTheStartEnds() throws InterruptedException {
        Started returned = shutdown.start(() -> {
            // The signal comes while the data port already serves and the start waits for the store.
            assertThat(hooks).as("the hook, registered before the start").hasSize(1);
            hooks.get(0).start();
            awaitWaiting(hooks.get(0));
            assertThat(gateway.closed).as("closed while the start is under way").isFalse();
            return gateway;
        });
        hooks.get(0).join();

        assertThat(returned).isSameAs(gateway);
        assertThat(gateway.closed).as("stopped with the drain").isTrue();
        assertThat(exited).as("exited once stopped").isTrue();
    }

    @Test
    void aSigtermAfterTheStartStopsTheGateway() throws InterruptedException {
        shutdown.start(() -> gateway);

        hooks.get(0).start();
        hooks.get(0).join();

        assertThat(gateway.closed).isTrue();
        assertThat(exited).isTrue();
    }

    /** The exit that follows a failed start runs the hook: it must neither wait nor turn the status into 0. */
    @Test
    void aFailedStartLeavesTheHookNothingToStopAndTheExitStatusAlone() throws InterruptedException {
        Throwable failure = catchThrowable(() -> shutdown.start(() -> {
            throw new IllegalArgumentException("--listen: 127.0.0.1:8080 (expected a free port)");
        }));

        hooks.get(0).start();
        hooks.get(0).join();

        assertThat(failure).isInstanceOf(IllegalArgumentException.class);
        assertThat(exited).as("exited with 0").isFalse();
    }

    /** Until the hook waits for the start: a state, not a time. */
    private static void awaitWaiting(Thread hook) throws InterruptedException {
        while (hook.getState() != Thread.State.WAITING) {
            assertThat(hook.getState()).as("the hook ended without waiting for the start").isNotEqualTo(Thread.State.TERMINATED);
            Thread.sleep(1);
        }
    }

    private static final class Started implements AutoCloseable {
        volatile boolean closed;

        @Override
        public void close() {
            closed = true;
        }
    }
}
