package dev.fencegate;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.GatewayOptions;
import dev.fencegate.config.Setting;
import dev.fencegate.observability.Logging;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Runs the gateway until SIGTERM or SIGINT, then shuts it down gracefully. */
@Command(name = "serve", mixinStandardHelpOptions = true, description = "Run the gateway (the default command).")
final class ServeCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);

    @Mixin
    GatewayOptions options;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        // First: a misspelt variable may be why a setting is missing.
        Setting.unreadVariables(System.getenv()).forEach(name -> log.warn(CheckConfigCommand.unread(name)));
        GatewayConfig config;
        try {
            config = options.toConfig();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        // Before the start: its data port serves while it waits for the store.
        ServeShutdown shutdown = ServeShutdown.register(Runtime.getRuntime()::addShutdownHook, () -> {
            stopped.countDown();
            // The JVM exits 128+15 after SIGTERM; a completed drain is a clean stop, so say 0.
            // Halting here is safe: this is the only shutdown hook serve registers, and it is done.
            Logging.stop();
            Runtime.getRuntime().halt(0);
        });
        try {
            shutdown.start(() -> Gateway.start(config));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        stopped.await();
        return 0;
    }
}
