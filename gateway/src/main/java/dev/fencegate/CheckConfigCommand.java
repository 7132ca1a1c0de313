package dev.fencegate;

import dev.fencegate.config.EffectiveSettings;
import dev.fencegate.config.GatewayConfigReader;
import dev.fencegate.config.GatewayOptions;
import dev.fencegate.config.Setting;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Prints the settings {@code serve} would run with, each with where it came from, secrets
 * masked; exits 0 when they are valid and 2, with the message naming the setting, when not.
 * Valid means what {@code serve} reads before it opens anything: the config, the scopes, the token key
 * and the keystores.
 */
@Command(name = "check-config", mixinStandardHelpOptions = true,
        description = "Print the effective settings (name = value (source)) and check them; exit 2 if invalid.")
public final class CheckConfigCommand implements Callable<Integer> {

    static final int INVALID = 2;

    @Mixin
    GatewayOptions options;

    @Spec
    CommandSpec spec;

    private final Map<String, String> env;

    public CheckConfigCommand() {
        this(System.getenv());
    }

    /** With an environment of the caller's choosing, so tests need no real variables. */
    public CheckConfigCommand(Map<String, String> env) {
        this.env = env;
    }

    /** What start and check-config say of a variable spelt as the gateway's that no setting reads. */
    static String unread(String variable) {
        return variable + " is set but no setting reads it (a misspelt variable leaves its setting at the default)";
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        EffectiveSettings settings;
        try {
            settings = options.settings(env);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return INVALID;
        }
        settings.lines().forEach(out::println);
        out.flush();
        Setting.unreadVariables(env).forEach(name -> err.println(unread(name)));
        err.flush();
        try {
            Gateway.check(GatewayConfigReader.read(settings));
        } catch (IllegalArgumentException e) {
            err.println(settings.explain(e).getMessage());
            return INVALID;
        }
        return 0;
    }
}
