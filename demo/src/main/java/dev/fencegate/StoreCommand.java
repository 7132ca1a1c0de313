package dev.fencegate;

import dev.fencegate.config.Durations;
import dev.fencegate.config.HostPort;
import dev.fencegate.demo.MemoryObjectStore;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** A small in-memory HTTP store to put behind the gateway in demos and load tests. */
@Command(name = "store", mixinStandardHelpOptions = true,
        description = "Run an in-memory HTTP object store (PUT/POST/DELETE/GET/HEAD) for demos and load tests.")
final class StoreCommand implements Callable<Integer> {

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:9000",
            description = "Where to listen (default ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--discard", description = "Keep nothing and answer every request at once: a do-nothing store.")
    boolean discard;

    @Option(names = "--delay-ms", defaultValue = "0", description = "Hold each write this long before applying it (default ${DEFAULT-VALUE}).")
    long delayMillis;

    @Override
    public Integer call() throws InterruptedException {
        HostPort address = HostPort.parse(listen);
        Duration delay = Duration.ofMillis(delayMillis);
        MemoryObjectStore store = MemoryObjectStore.start(new MemoryObjectStore.Options(address.host(), address.port(),
                discard, delay, delay));
        System.out.println("store listening on " + address.host() + ":" + store.port()
                + (discard ? " (discarding)" : "") + (delayMillis > 0 ? ", writes take " + Durations.format(delay) : ""));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            store.close();
            stopped.countDown();
        }));
        stopped.await();
        return 0;
    }
}
