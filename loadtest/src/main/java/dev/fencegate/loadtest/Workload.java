package dev.fencegate.loadtest;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;

/**
 * The write workloads the standard comparison knows, by the name given on the command line.
 * Same-token writes are what held fences admit from memory; the others change a fence on
 * every write, or on some, and go through PostgreSQL.
 */
public enum Workload {
    SAME_TOKEN(TokenPattern.STEADY, 1024,
            "each resource written again and again with its current token (held fences admit from memory)"),
    NEW_OBJECTS(TokenPattern.NEW_OBJECTS, 1024,
            "every write to a path never written before, at the comparison's token base: a new fence row per write"),
    RAISES(TokenPattern.RAISES, 1000,
            "every write one above its resource's last token, each resource written in order by one connection"),
    MIXED(TokenPattern.MIXED, 1024,
            "90% the current token, 9% new objects, 1% raises"),
    JOB_OBJECTS(TokenPattern.JOB_OBJECTS, 1024,
            "every write to a path never written before under one of the resources, its job, at the job's token;"
                    + " the gateway fences each job as one resource (--scopes)");

    private final TokenPattern pattern;
    private final int defaultResources;
    private final String description;

    Workload(TokenPattern pattern, int defaultResources, String description) {
        this.pattern = pattern;
        this.defaultResources = defaultResources;
        this.description = description;
    }

    public TokenPattern pattern() {
        return pattern;
    }

    public int defaultResources() {
        return defaultResources;
    }

    public String description() {
        return description;
    }

    /** The command-line name: {@code same-token}, {@code new-objects}, {@code raises}, {@code mixed}, {@code job-objects}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Workload named(String name) {
        return Arrays.stream(values()).filter(w -> w.cliName().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("workload: " + name + " (expected: "
                        + Arrays.stream(values()).map(Workload::cliName).collect(Collectors.joining(", ")) + ")"));
    }

    /** For picocli: {@code --workload new-objects}. */
    public static final class Converter implements ITypeConverter<Workload> {
        @Override
        public Workload convert(String value) {
            return named(value);
        }
    }
}
