package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's worker example, compiled as it stands, against this library and the AWS SDK a worker brings, and what the README says of it. */
class ReadmeExampleTest {

    private static final String HEADING = "## For workers";

    /**
     * The first Java block under "For workers", as the body of a method given what the example
     * leaves to the reader (the database settings, the worker's name, its parts), with the imports
     * a worker would write.
     */
    @Test
    void theWorkerExampleCompilesAsWritten(@TempDir Path classes) throws IOException {
        String example = example(readme());
        String before = """
                import dev.fencegate.client.*;
                import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
                import java.time.Duration;
                import java.util.List;
                import javax.sql.DataSource;
                import software.amazon.awssdk.core.sync.RequestBody;
                import software.amazon.awssdk.http.apache5.Apache5HttpClient;
                import software.amazon.awssdk.regions.Region;
                import software.amazon.awssdk.services.s3.S3Client;

                class Worker {
                    record Part(String name) {
                        byte[] render() {
                            return name.getBytes();
                        }
                    }

                    void run(String dbUrl, String dbUser, String dbPassword, String workerId, List<Part> parts) {
                """;
        String source = before + example + """
                    }
                }
                """;
        long linesBefore = before.lines().count();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        boolean compiled = compile("Worker", source, classes, diagnostics);

        assertThat(compiled).as("the README's worker example compiles; javac said:%n%s",
                diagnostics.getDiagnostics().stream().map(d -> "line " + (d.getLineNumber() - linesBefore) + " of the example: "
                        + d.getMessage(Locale.ROOT)).toList()).isTrue();
    }

    /**
     * After a write's check, the HTTP client may wait for a pooled connection and then for a new
     * one, one after the other. The README says the example keeps the two timeouts together below
     * the lease's margin, and names the three: the expressions the example passes are evaluated
     * here, its lease timing by this library, and the sum and the README's numbers are checked.
     */
    @Test
    void theWorkerExampleKeepsItsConnectionWaitsTogetherBelowTheMargin(@TempDir Path classes) throws Exception {
        String readme = readme();
        String example = example(readme);
        String source = """
                import dev.fencegate.client.*;
                import java.time.Duration;
                import java.util.List;
                import java.util.function.Supplier;

                public class ExampleTimeouts implements Supplier<List<Duration>> {
                    public List<Duration> get() {
                        return List.of(%s, %s, LeaseTiming.of(%s).margin());
                    }
                }
                """.formatted(argumentOf(example, ".connectionAcquisitionTimeout("), argumentOf(example, ".connectionTimeout("),
                argumentOf(example, "LeaseTiming.of("));
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        assertThat(compile("ExampleTimeouts", source, classes, diagnostics)).as("javac said: %s", diagnostics.getDiagnostics()).isTrue();
        List<Duration> timeouts;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
            @SuppressWarnings("unchecked")
            Supplier<List<Duration>> evaluated = (Supplier<List<Duration>>) loader.loadClass("ExampleTimeouts")
                    .getConstructor().newInstance();
            timeouts = evaluated.get();
        }
        Duration acquisition = timeouts.get(0);
        Duration connect = timeouts.get(1);
        Duration margin = timeouts.get(2);

        assertThat(acquisition.plus(connect)).as("the example's acquisition and connect timeouts together").isLessThan(margin);
        assertThat(readme.replaceAll("\\s+", " ")).contains("as the example does (" + spoken(acquisition) + " and " + spoken(connect)
                + " against a margin of " + spoken(margin) + ")");
    }

    private static String readme() throws IOException {
        return Files.readString(Path.of("..", "README.md"));
    }

    /** The first Java block under "For workers". */
    private static String example(String readme) {
        int section = readme.indexOf(HEADING);
        assertThat(section).as("README section %s", HEADING).isNotNegative();
        int start = readme.indexOf("```java\n", section) + "```java\n".length();
        return readme.substring(start, readme.indexOf("```", start));
    }

    /** The argument of the one call that {@code call} (up to its opening parenthesis) starts in {@code code}. */
    private static String argumentOf(String code, String call) {
        int start = code.indexOf(call);
        assertThat(start).as("the example calls %s", call).isNotNegative();
        assertThat(code.indexOf(call, start + 1)).as("the example calls %s once", call).isNegative();
        int open = start + call.length();
        int depth = 1;
        for (int i = open; i < code.length(); i++) {
            char c = code.charAt(i);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (depth == 0) {
                return code.substring(open, i);
            }
        }
        throw new AssertionError("the example's " + call + " is not closed");
    }

    /** As the README writes a duration: whole seconds as "2 s", anything else in milliseconds. */
    private static String spoken(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }

    private static boolean compile(String name, String source, Path classes, DiagnosticCollector<JavaFileObject> diagnostics) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        List<String> options = List.of("-d", classes.toString(), "-classpath", System.getProperty("java.class.path"));
        return compiler.getTask(null, null, diagnostics, options, null, List.of(file)).call();
    }
}
