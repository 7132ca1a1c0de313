package dev.fencegate;

import dev.fencegate.observability.Logging;
import java.io.PrintWriter;
import java.util.Set;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/** The command line: {@code serve} (the default), {@code check-config} and {@code sign}; the demo has its own jar. */
@Command(name = "fencegate", mixinStandardHelpOptions = true, version = "fencegate 0.1.0",
        description = "A reverse proxy that refuses writes carrying a stale fencing token.",
        subcommands = {ServeCommand.class, CheckConfigCommand.class, SignCommand.class})
public final class Fencegate {

    /** Commands of the demo's own jar, which a reader may try on this one. */
    private static final Set<String> DEMO_COMMANDS = Set.of("demo", "store");

    public static void main(String[] args) {
        int exitCode;
        try {
            exitCode = commandLine().execute(withDefaultCommand(args));
        } catch (Throwable e) {
            // picocli answers exceptions; an Error (a class missing from a damaged jar, say) passes it.
            // Exit rather than leave a process that threads started before the error keep alive.
            LoggerFactory.getLogger(Fencegate.class).error("Fencegate stopped on an unexpected error", e);
            exitCode = 1;
        }
        // Log lines are written by a thread of their own: what it still queues goes out first.
        Logging.stop();
        System.exit(exitCode);
    }

    public static CommandLine commandLine() {
        CommandLine line = new CommandLine(new Fencegate()).setParameterExceptionHandler(Fencegate::shortError);
        // Each subcommand lists -V (mixinStandardHelpOptions); without the version given here it would print nothing.
        String[] version = line.getCommandSpec().version();
        line.getSubcommands().values().forEach(sub -> sub.getCommandSpec().version(version));
        return line;
    }

    /**
     * A bad setting gets its one line and a pointer to the help, not picocli's whole usage text,
     * where the line that matters would scroll away.
     */
    static int shortError(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println(e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        if (e instanceof UnmatchedArgumentException unmatched && unmatched.getUnmatched().stream().anyMatch(DEMO_COMMANDS::contains)) {
            err.println("The demo and its store are commands of the demo's jar: java -jar demo/target/fencegate-demo.jar --help");
        }
        // The top level's help lists commands only; the settings are serve's.
        CommandLine settings = command.getParent() == null && command.getSubcommands().containsKey("serve")
                ? command.getSubcommands().get("serve") : command;
        err.println("See '" + howToRun(settings) + " --help' for every setting and its default.");
        err.flush();
        return command.getExitCodeExceptionMapper() != null
                ? command.getExitCodeExceptionMapper().getExitCode(e)
                : command.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** The command as a reader types it: the gateway is a jar, there is no {@code fencegate} on the path. */
    static String howToRun(CommandLine command) {
        String path = command.getCommandSpec().qualifiedName();
        return "java -jar fencegate.jar" + path.substring(command.getCommandSpec().root().name().length());
    }

    /** {@code fencegate --listen ...} means {@code fencegate serve --listen ...}. */
    static String[] withDefaultCommand(String[] args) {
        boolean topLevelOnly = args.length > 0 && (args[0].equals("--help") || args[0].equals("-h")
                || args[0].equals("--version") || args[0].equals("-V"));
        if (topLevelOnly || args.length > 0 && !args[0].startsWith("-")) {
            return args;
        }
        String[] serve = new String[args.length + 1];
        serve[0] = "serve";
        System.arraycopy(args, 0, serve, 1, args.length);
        return serve;
    }
}
