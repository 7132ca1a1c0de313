package dev.fencegate.loadtest.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/** The nginx executable, looked up on PATH and in /usr/sbin (not on a non-root PATH). */
record NginxBinary(Path path, String version) {

    static Optional<NginxBinary> find(String command) {
        Stream<Path> candidates = command.contains("/")
                ? Stream.of(Path.of(command))
                : Stream.concat(
                        Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                                .filter(dir -> !dir.isEmpty())
                                .map(dir -> Path.of(dir, command)),
                        Stream.of(Path.of("/usr/sbin", command)));
        return candidates.filter(Files::isExecutable).findFirst()
                .map(path -> new NginxBinary(path, versionOf(path)));
    }

    private static String versionOf(Path path) {
        try {
            Process process = new ProcessBuilder(path.toString(), "-v").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            process.waitFor();
            return out.replace("nginx version: ", "");
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
