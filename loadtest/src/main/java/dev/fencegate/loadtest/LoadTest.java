package dev.fencegate.loadtest;

import dev.fencegate.loadtest.compare.CompareCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point: {@code run} drives one target, {@code compare} runs the standard comparison. */
@Command(name = "fencegate-loadtest", mixinStandardHelpOptions = true,
        subcommands = {RunCommand.class, CompareCommand.class},
        description = "Open-loop HTTP load generator and comparison runner for Fencegate.")
public final class LoadTest implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new LoadTest())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler(LoadTest::report)
                .execute(args));
    }

    /** Bad settings and unreachable targets are the user's to fix: say what, skip the stack trace. */
    private static int report(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
        if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
            command.getErr().println(command.getCommandName() + ": " + e.getMessage());
            return 2;
        }
        e.printStackTrace(command.getErr());
        return 3;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "choose a subcommand: run or compare");
    }
}
