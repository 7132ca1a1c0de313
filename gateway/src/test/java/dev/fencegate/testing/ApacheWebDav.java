package dev.fencegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Apache httpd with mod_dav on loopback (Debian's apache2), a second real WebDAV store beside
 * nginx's. {@code withModDir}: Debian's default module set, whose DirectorySlash redirects a
 * collection named without its trailing '/'; without it (DirectorySlash Off behaves alike) mod_dav
 * serves the collection at both names, as RFC 4918 5.2 allows. Where apache2 is not installed,
 * tests using it are skipped, unless FENCEGATE_REQUIRE_APACHE is set (CI sets it): then its absence
 * fails them.
 */
public final class ApacheWebDav implements AutoCloseable {

    public static final String REQUIRE_VARIABLE = "FENCEGATE_REQUIRE_APACHE";
    private static final Path BINARY = Path.of("/usr/sbin/apache2");
    private final Process process;
    private final Path directory;
    private final int port;

    private ApacheWebDav(Process process, Path directory, int port) {
        this.process = process;
        this.directory = directory;
        this.port = port;
    }

    public static ApacheWebDav start(boolean withModDir) {
        if (!Files.isExecutable(BINARY)) {
            if (System.getenv(REQUIRE_VARIABLE) != null) {
                throw new IllegalStateException(BINARY + " is missing and " + REQUIRE_VARIABLE + " is set");
            }
            Assumptions.abort(BINARY + " is not installed (set " + REQUIRE_VARIABLE + " to make that a failure)");
        }
        try {
            Path dir = Files.createTempDirectory("fencegate-apache");
            Files.createDirectories(dir.resolve("root"));
            Files.createDirectories(dir.resolve("lock"));
            for (Path p : new Path[] {dir, dir.resolve("root"), dir.resolve("lock")}) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
            }
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            boolean root = "root".equals(System.getProperty("user.name"));
            String m = "/usr/lib/apache2/modules/";
            String conf = "ServerRoot \"" + dir + "\"\nPidFile " + dir + "/httpd.pid\nListen 127.0.0.1:" + port + "\nServerName localhost\n"
                    + "LoadModule mpm_prefork_module " + m + "mod_mpm_prefork.so\n"
                    + "LoadModule authz_core_module " + m + "mod_authz_core.so\n"
                    + (withModDir ? "LoadModule dir_module " + m + "mod_dir.so\n" : "")
                    + "LoadModule dav_module " + m + "mod_dav.so\nLoadModule dav_fs_module " + m + "mod_dav_fs.so\n"
                    + (root ? "User nobody\nGroup nogroup\n" : "")
                    + "ErrorLog " + dir + "/error.log\nDocumentRoot " + dir + "/root\nDavLockDB " + dir + "/lock/DavLock\n"
                    + "StartServers 1\nMinSpareServers 1\nMaxSpareServers 2\n"
                    + "<Directory " + dir + "/root>\n  Dav On\n  Require all granted\n</Directory>\n";
            Files.writeString(dir.resolve("httpd.conf"), conf);
            // Its own session: on SIGTERM, prefork httpd signals its whole process group.
            Process process = new ProcessBuilder("/usr/bin/setsid", BINARY.toString(), "-f", dir.resolve("httpd.conf").toString(), "-DFOREGROUND")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile()).start();
            ApacheWebDav apache = new ApacheWebDav(process, dir, port);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                    return apache;
                } catch (IOException notYet) {
                    Thread.sleep(50);
                }
            }
            apache.close();
            throw new IllegalStateException("apache2 did not listen on " + port + "; see " + dir.resolve("error.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public int port() {
        return port;
    }

    /** Every file the store holds, by its path under the root ({@code /b/k}), with its content. */
    public Map<String, String> objects() {
        Path root = directory.resolve("root");
        Map<String, String> objects = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                objects.put("/" + root.relativize(file), Files.readString(file));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return objects;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // left behind
        }
    }
}
