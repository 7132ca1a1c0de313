package dev.fencegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Fencegate;
import dev.fencegate.SignCommand;
import dev.fencegate.config.ConfigFile;
import dev.fencegate.config.EffectiveSettings;
import dev.fencegate.config.GatewayConfigReader;
import dev.fencegate.config.Setting;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.TokenSignatures;
import dev.fencegate.http.ClaimParser;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.StoreIdentity;
import dev.fencegate.proxy.GatewayServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code fencegate sign} signs the key the gateway checks a write against, made from the gateway's
 * own naming settings; each signature here is checked by the data port's claim rules for a
 * gateway with those settings.
 */
class SignCommandTest {

    private static final String KEY = "a-shared-key-of-at-least-32-bytes-for-issuers";
    private static final String SCOPES = "/{bucket}/jobs/{job}/**";

    @TempDir
    Path dir;

    private Path keyFile;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeEach
    void writeKey() throws IOException {
        keyFile = Files.writeString(dir.resolve("token.key"), KEY + "\n");
    }

    @Test
    void aPlainPathUnderTheDefaultStoreKindIsSignedAsBefore() {
        int status = run(Map.of(), "--key-file", keyFile.toString(), "--resource", "/bucket/report.csv", "--token", "8");

        assertThat(status).as(err.toString()).isZero();
        assertThat(out.toString()).isEqualTo(signature("/bucket/report.csv", 8) + System.lineSeparator());
        assertThat(err.toString()).contains("signed token 8 on /bucket/report.csv");
        assertThat(acceptedBy(Map.of(), "/bucket/report.csv", null, 8)).isTrue();
    }

    /** S3 stores take /b/dir/ for /b/dir, and the gateway fences it so: the signature names /b/dir. */
    @Test
    void aTrailingSlashIsSignedAsTheObjectTheS3KindsFenceItAs() {
        int status = run(Map.of(), "--key-file", keyFile.toString(), "--resource", "/b/dir/", "--token", "3");

        assertThat(status).as(err.toString()).isZero();
        assertThat(acceptedBy(Map.of(), "/b/dir/", null, 3)).isTrue();
        assertThat(err.toString()).contains("signed token 3 on /b/dir, the key the gateway checks a write to '/b/dir/' against");
    }

    /** The operator sees the job's key; the signature covers every part of the job, and the job's key signs alike. */
    @Test
    void aPartUnderAJobScopeIsSignedAsItsJob() throws IOException {
        int status = run(Map.of(), "--key-file", keyFile.toString(), "--scopes", SCOPES,
                "--resource", "/data/jobs/50/part-0", "--token", "3");

        assertThat(status).as(err.toString()).isZero();
        assertThat(err.toString()).contains("signed token 3 on /data/jobs/50,");
        Map<Setting, String> scoped = Map.of(Setting.SCOPES, SCOPES);
        assertThat(acceptedBy(scoped, "/data/jobs/50/part-0", null, 3)).isTrue();
        assertThat(acceptedBy(scoped, "/data/jobs/50/part-9", null, 3)).isTrue();
        String byPart = out.toString();

        // The same settings from the gateway's --config file, the scope's own key given.
        Path config = Files.writeString(dir.resolve("fencegate.yml"), "scopes: " + SCOPES + "\ntoken-key-file: " + keyFile + "\n");
        reset();
        assertThat(run(Map.of(), "--config", config.toString(), "--resource", "/data/jobs/50", "--token", "3")).as(err.toString()).isZero();
        assertThat(out.toString()).isEqualTo(byPart);
    }

    /** Under s3-virtual-host the bucket comes from the Host; the key is the object's path-style name. */
    @Test
    void aVirtualHostedWriteIsSignedUnderTheBucketItsHostNames() {
        Map<String, String> env = Map.of("FENCEGATE_STORE_KIND", "s3-virtual-host", "FENCEGATE_VIRTUAL_HOST_DOMAINS", "s3.example");
        int status = run(env, "--key-file", keyFile.toString(), "--host", "reports.s3.example", "--resource", "/q3.csv", "--token", "4");

        assertThat(status).as(err.toString()).isZero();
        assertThat(err.toString()).contains("signed token 4 on /reports/q3.csv");
        Map<Setting, String> virtualHost = Map.of(Setting.STORE_KIND, "s3-virtual-host", Setting.VIRTUAL_HOST_DOMAINS, "s3.example");
        assertThat(acceptedBy(virtualHost, "/q3.csv", "reports.s3.example", 4)).isTrue();

        reset();
        assertThat(run(env, "--key-file", keyFile.toString(), "--resource", "/q3.csv", "--token", "4")).isEqualTo(2);
        assertThat(err.toString()).contains("no Host header").contains("--host");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aWriteTheGatewayWouldRefuseExitsTwoWithTheReasonAndPrintsNoSignature() {
        assertRefused(Map.of(), "is under no configured scope", "--scopes", SCOPES, "--resource", "/data/tmp/file");
        assertRefused(Map.of(), "collection path", "--store-kind", "webdav", "--resource", "/dir/");
        assertRefused(Map.of(), "Host names the bucket 'victim'", "--host", "victim.localhost", "--resource", "/report.csv");
        assertRefused(Map.of(), "Host names the bucket 'victim'",
                "--upstream", "http://minio.internal:9000", "--host", "victim.minio.internal", "--resource", "/report.csv");
        assertRefused(Map.of(), "dot segment", "--resource", "/a/../b");
        // The gateway does not start under these settings: an S3 store would read the path as the bucket.
        assertRefused(Map.of(), "expected no path under --store-kind s3-path", "--upstream", "http://minio.internal:9000/bkt",
                "--resource", "/b/k");
        assertRefused(Map.of(), "S3Proxy", "--resource", "/b/k-0f8fad5b-d9cb-469f-a165-70867728950e");
        assertRefused(Map.of(), "bucket configuration", "--resource", "/bucket?versioning");
        assertRefused(Map.of("FENCEGATE_STORE_KIND", "s3"), "--store-kind: 's3'", "--resource", "/b/k");
        // A job's key spelt as an object (a trailing '/'): the data port refuses that write, under either setting.
        assertRefused(Map.of(), "has the name of a job's key", "--scopes", SCOPES, "--resource", "/data/jobs/50/");
        assertRefused(Map.of(), "has the name of a job's key", "--scopes", SCOPES, "--unscoped-writes", "per-object",
                "--resource", "/data/jobs/50/");
    }

    /** The gateway answers 400 to {@code Fencing-Token: 08}: a signature for it would sign a grant no write can carry. */
    @Test
    void aTokenSpeltAsTheGatewayRefusesItExitsTwoAndPrintsNoSignature() {
        for (String token : new String[] {"08", "+8", " 8", "0", "9223372036854775808", "８"}) {
            reset();
            assertThat(run(Map.of(), "--key-file", keyFile.toString(), "--resource", "/b/k", "--token", token)).as(token).isEqualTo(2);
            assertThat(err.toString()).as(token).startsWith("--token: '" + token + "' (expected a decimal from 1 to");
            assertThat(out.toString()).as(token).isEmpty();
        }
    }

    @Test
    void theKeyIsTheGatewaysTokenKeyFileUnlessOneIsGiven() {
        assertThat(run(Map.of("FENCEGATE_TOKEN_KEY_FILE", keyFile.toString()), "--resource", "/b/k", "--token", "2"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).startsWith(signature("/b/k", 2));

        reset();
        assertThat(run(Map.of(), "--resource", "/b/k", "--token", "2")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--key-file: missing");
    }

    @Test
    void aBadKeyIsNamedByTheFlagThatGaveIt() throws IOException {
        Path shortKey = Files.writeString(dir.resolve("short.key"), "too short\n");
        assertThat(run(Map.of(), "--key-file", shortKey.toString(), "--resource", "/b/k", "--token", "2")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--key-file: '" + shortKey + "'");

        reset();
        assertThat(run(Map.of("FENCEGATE_TOKEN_KEY_FILE", shortKey.toString()), "--resource", "/b/k", "--token", "2")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--token-key-file: '" + shortKey + "'");
    }

    @Test
    void signIsASubcommandThatReadsTheGatewaysSettings() {
        CommandLine sign = Fencegate.commandLine().getSubcommands().get("sign");
        assertThat(sign.getCommandSpec().findOption("--scopes")).isNotNull();
        assertThat(sign.getCommandSpec().findOption("--config")).isNotNull();
    }

    private void assertRefused(Map<String, String> env, String reason, String... args) {
        reset();
        String[] all = new String[args.length + 4];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(new String[] {"--key-file", keyFile.toString(), "--token", "5"}, 0, all, args.length, 4);
        assertThat(run(env, all)).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains(reason);
        assertThat(out.toString()).isEmpty();
    }

    private static String signature(String key, long token) {
        return new TokenSignatures(KEY.getBytes(StandardCharsets.UTF_8)).sign(new ResourceKey(key), new FencingToken(token));
    }

    /**
     * Whether a gateway with these naming settings, the key file as its --token-key-file, admits a
     * PUT of {@code target} carrying {@code token} and the signature printed: its data port names
     * the object by the store kind's identity, then parses the claim (scope and signature).
     */
    private boolean acceptedBy(Map<Setting, String> naming, String target, String host, long token) {
        Map<Setting, String> flags = new EnumMap<>(Setting.class);
        flags.putAll(naming);
        flags.put(Setting.UPSTREAM, "http://127.0.0.1:9000");
        flags.put(Setting.TOKEN_KEY_FILE, keyFile.toString());
        ClaimRules claims = GatewayServer.claimRules(GatewayConfigReader.read(EffectiveSettings.resolve(flags, Map.of(), ConfigFile.none())));
        StoreIdentity.Identified object = claims.identity().identify("PUT", target, host, null);
        assertThat(object).isInstanceOf(StoreIdentity.Identified.Resource.class);
        String printed = out.toString().strip();
        ClaimParser.ClaimParse parsed = claims.parse(((StoreIdentity.Identified.Resource) object).key(),
                List.of(Long.toString(token)), List.of(), List.of(printed));
        return parsed instanceof ClaimParser.ClaimParse.Valid;
    }

    private int run(Map<String, String> env, String... args) {
        CommandLine cli = new CommandLine(new SignCommand(env));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private void reset() {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
    }
}
