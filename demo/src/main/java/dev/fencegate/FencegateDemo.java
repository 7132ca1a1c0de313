package dev.fencegate;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The demo jar's command line: {@code demo} (the default) and {@code store}. */
@Command(name = "fencegate-demo", mixinStandardHelpOptions = true, version = "fencegate-demo 0.1.0",
        description = "The gateway's demo, and the in-memory store it runs in front of.",
        subcommands = {DemoCommand.class, StoreCommand.class})
public final class FencegateDemo {

    public static void main(String[] args) {
        System.exit(new CommandLine(new FencegateDemo()).execute(withDefaultCommand(args)));
    }

    /** {@code fencegate-demo} and {@code fencegate-demo --db-url ...} mean {@code fencegate-demo demo ...}. */
    static String[] withDefaultCommand(String[] args) {
        boolean topLevelOnly = args.length > 0 && (args[0].equals("--help") || args[0].equals("-h")
                || args[0].equals("--version") || args[0].equals("-V"));
        if (topLevelOnly || args.length > 0 && !args[0].startsWith("-")) {
            return args;
        }
        String[] demo = new String[args.length + 1];
        demo[0] = "demo";
        System.arraycopy(args, 0, demo, 1, args.length);
        return demo;
    }
}
