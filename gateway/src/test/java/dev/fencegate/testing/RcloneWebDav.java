package dev.fencegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * rclone's WebDAV server on loopback (Debian's rclone, {@code rclone serve webdav} on a local
 * folder), built on Go's {@code golang.org/x/net/webdav}: it ignores {@code Depth} and deletes a
 * collection's whole tree on a DELETE of its name, with or without the final '/'. Where rclone is
 * not installed, tests using it are skipped, unless FENCEGATE_REQUIRE_RCLONE is set (CI sets it):
 * then its absence fails them.
 */
public final class RcloneWebDav extends WebDavStore {

    public static final String REQUIRE_VARIABLE = "FENCEGATE_REQUIRE_RCLONE";
    private static final Path BINARY = Path.of("/usr/bin/rclone");

    private RcloneWebDav(WebDavProcess server) {
        super(server);
    }

    public static RcloneWebDav start() {
        WebDavProcess.requireInstalled(BINARY, REQUIRE_VARIABLE);
        try {
            Path dir = WebDavProcess.directory("fencegate-rclone");
            int port = WebDavProcess.freePort();
            // No configuration file of the user's is read or written; writes go straight to the folder.
            return new RcloneWebDav(WebDavProcess.start("rclone", List.of(BINARY.toString(), "serve", "webdav",
                    dir.resolve("root").toString(), "--addr", "127.0.0.1:" + port, "--config", "/dev/null"),
                    dir, port, List.of("stdout.log")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
