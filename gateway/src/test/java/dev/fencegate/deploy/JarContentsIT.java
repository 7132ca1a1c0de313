package dev.fencegate.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.fencegate.testing.GatewayProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The README's "What the jar carries" gives the built jar's size and entry count, and what its
 * manifest allows. It runs after the jar is packaged; the figures may lag a few classes behind, not more.
 */
class JarContentsIT {

    private static final Pattern STATED = Pattern.compile(
            "`gateway/target/fencegate\\.jar` is the gateway and its libraries only:\\s+([0-9.]+) MB, ([0-9,]+) entries");

    @Test
    void theJarHasTheSizeAndEntriesTheReadmeStates() throws IOException {
        Matcher stated = STATED.matcher(Files.readString(Path.of("..", "README.md")));
        assertThat(stated.find()).as("the README states the jar's size and entries").isTrue();
        double statedMegabytes = Double.parseDouble(stated.group(1));
        int statedEntries = Integer.parseInt(stated.group(2).replace(",", ""));

        double megabytes = Files.size(GatewayProcess.JAR) / 1_000_000.0;
        int entries;
        try (ZipFile jar = new ZipFile(GatewayProcess.JAR.toFile())) {
            entries = jar.size();
        }

        // One decimal in the README, and room for a handful of new classes before it must be restated.
        assertThat(statedMegabytes).as("MB in the README, jar has %.2f MB", megabytes).isCloseTo(megabytes, within(0.1));
        assertThat((double) statedEntries).as("entries in the README, jar has %d", entries)
                .isCloseTo(entries, within(entries * 0.005));
    }

    @Test
    void theJarLetsNettyLoadItsNativeLibraryOnNewerJavasWithoutAWarning() throws IOException {
        try (JarFile jar = new JarFile(GatewayProcess.JAR.toFile())) {
            // Java 22 and later print a warning on stderr at start unless an executable jar's manifest says this.
            assertThat(jar.getManifest().getMainAttributes().getValue("Enable-Native-Access")).isEqualTo("ALL-UNNAMED");
        }
    }
}
