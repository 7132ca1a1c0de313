package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's worker example, compiled as it stands, against this library and the AWS SDK a worker brings. */
class ReadmeExampleTest {

    private static final String HEADING = "## For workers";

    /**
     * The first Java block under "For workers", as the body of a method given what the example
     * leaves to the reader (the database settings, the worker's name, its parts), with the imports
     * a worker would write.
     */
    @Test
    void theWorkerExampleCompilesAsWritten(@TempDir Path classes) throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int section = readme.indexOf(HEADING);
        assertThat(section).as("README section %s", HEADING).isNotNegative();
        int start = readme.indexOf("```java\n", section) + "```java\n".length();
        String example = readme.substring(start, readme.indexOf("```", start));
        String before = """
                import dev.fencegate.client.*;
                import java.net.URI;
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
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Worker.java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        List<String> options = List.of("-d", classes.toString(), "-classpath", System.getProperty("java.class.path"));
        boolean compiled = compiler.getTask(null, null, diagnostics, options, null, List.of(file)).call();

        assertThat(compiled).as("the README's worker example compiles; javac said:%n%s",
                diagnostics.getDiagnostics().stream().map(d -> "line " + (d.getLineNumber() - linesBefore) + " of the example: "
                        + d.getMessage(Locale.ROOT)).toList()).isTrue();
    }
}
