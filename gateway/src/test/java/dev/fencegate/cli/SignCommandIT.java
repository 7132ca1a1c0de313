package dev.fencegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.SignCommand;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.config.ScopeConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What {@code fencegate sign} prints is what a gateway with the same settings accepts. */
@ExtendWith(NoNettyLeaks.class)
class SignCommandIT {

    private static final String KEY = "a-shared-key-of-at-least-32-bytes-for-issuers";
    private static final String SCOPES = "/{bucket}/jobs/{job}/**";

    @TempDir
    Path dir;

    @Test
    void aSignatureMadeBySignForAScopedPartIsAcceptedByAGatewayWithThoseScopes() throws Exception {
        Path keyFile = Files.writeString(dir.resolve("token.key"), KEY + "\n");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine sign = new CommandLine(new SignCommand(Map.of("FENCEGATE_SCOPES", SCOPES)));
        sign.setOut(new PrintWriter(out, true));
        sign.setErr(new PrintWriter(err, true));
        assertThat(sign.execute("--key-file", keyFile.toString(), "--resource", "/data/jobs/50/part-0", "--token", "3"))
                .as(err.toString()).isZero();
        String signature = out.toString().strip();

        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> {
            GatewayConfig base = GatewayHarness.config(upstream, TestPostgres.config(TestPostgres.newSchema("sign_command")),
                    Duration.ofSeconds(5), Duration.ofSeconds(5), new SafetyConfig(false, false, 100_000, keyFile.toString()));
            return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                    base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(), base.limits(),
                    base.safety(), base.ioThreads(), base.operations(), new ScopeConfig(SCOPES, true));
        })) {
            assertThat(put(gateway, "/data/jobs/50/part-0", signature)).isEqualTo(201);
            assertThat(put(gateway, "/data/jobs/50/part-1", signature)).as("another part of the job").isEqualTo(201);
            assertThat(gateway.fenceRow("/data/jobs/50")).isEqualTo(3);
            assertThat(put(gateway, "/data/jobs/51/part-0", signature)).as("another job").isEqualTo(403);
            assertThat(gateway.store.object("/data/jobs/51/part-0")).isEmpty();
        }
        assertThat(err.toString()).as("the key the operator is shown").contains("signed token 3 on /data/jobs/50,");
    }

    private static int put(GatewayHarness gateway, String path, String signature) {
        return gateway.send(HttpRequest.newBuilder(gateway.uri(path)).header("Fencing-Token", "3")
                .header("Fencing-Token-Signature", signature).PUT(HttpRequest.BodyPublishers.ofString("part")).build()).statusCode();
    }
}
