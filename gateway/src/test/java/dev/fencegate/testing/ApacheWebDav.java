package dev.fencegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Apache httpd with mod_dav on loopback (Debian's apache2), a second real WebDAV store beside
 * nginx's. {@code withModDir}: Debian's default module set, whose DirectorySlash redirects a
 * collection named without its trailing '/'; without it (DirectorySlash Off behaves alike) mod_dav
 * serves the collection at both names, as RFC 4918 5.2 allows. Where apache2 is not installed,
 * tests using it are skipped, unless FENCEGATE_REQUIRE_APACHE is set (CI sets it): then its absence
 * fails them.
 */
public final class ApacheWebDav extends WebDavStore {

    public static final String REQUIRE_VARIABLE = "FENCEGATE_REQUIRE_APACHE";
    private static final Path BINARY = Path.of("/usr/sbin/apache2");
    private static final String MODULES = "/usr/lib/apache2/modules/";

    private ApacheWebDav(WebDavProcess server) {
        super(server);
    }

    public static ApacheWebDav start(boolean withModDir) {
        WebDavProcess.requireInstalled(BINARY, REQUIRE_VARIABLE);
        try {
            Path dir = WebDavProcess.directory("fencegate-apache");
            Files.createDirectories(dir.resolve("lock"));
            // Run as root, httpd's children are "nobody", who must write the root and the lock database.
            for (Path path : new Path[] {dir, dir.resolve("root"), dir.resolve("lock")}) {
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxrwxrwx"));
            }
            int port = WebDavProcess.freePort();
            boolean root = "root".equals(System.getProperty("user.name"));
            String conf = "ServerRoot \"" + dir + "\"\nPidFile " + dir + "/httpd.pid\nListen 127.0.0.1:" + port
                    + "\nServerName localhost\n"
                    + "LoadModule mpm_prefork_module " + MODULES + "mod_mpm_prefork.so\n"
                    + "LoadModule authz_core_module " + MODULES + "mod_authz_core.so\n"
                    + (withModDir ? "LoadModule dir_module " + MODULES + "mod_dir.so\n" : "")
                    + "LoadModule dav_module " + MODULES + "mod_dav.so\nLoadModule dav_fs_module " + MODULES + "mod_dav_fs.so\n"
                    + (root ? "User nobody\nGroup nogroup\n" : "")
                    + "ErrorLog " + dir + "/error.log\nDocumentRoot " + dir + "/root\nDavLockDB " + dir + "/lock/DavLock\n"
                    + "StartServers 1\nMinSpareServers 1\nMaxSpareServers 2\n"
                    + "<Directory " + dir + "/root>\n  Dav On\n  Require all granted\n</Directory>\n";
            Files.writeString(dir.resolve("httpd.conf"), conf);
            // A session of its own: stopped, prefork httpd signals its whole process group.
            return new ApacheWebDav(WebDavProcess.start("apache2", List.of("/usr/bin/setsid", BINARY.toString(), "-f",
                    dir.resolve("httpd.conf").toString(), "-DFOREGROUND"), dir, port, List.of("stdout.log", "error.log")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
