package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.TokenSignatures;
import dev.fencegate.http.FenceNaming;
import dev.fencegate.store.FenceDatabase;
import dev.fencegate.store.NamingGuard;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Signature checks are per instance: one instance started without {@code --token-key-file} beside
 * signed ones would admit an unsigned 9223372036854775807 and fence every signed holder out for
 * good. Whether tokens are signed is recorded beside the fence naming, so that instance refuses
 * writes instead.
 */
@ExtendWith(NoNettyLeaks.class)
class MixedTokenSigningIT {

    private static final String KEY = "a-shared-key-of-at-least-32-bytes-for-tests";
    private static final TokenSignatures ISSUER = new TokenSignatures(KEY.getBytes(StandardCharsets.UTF_8));
    private static final String PATH = "/jobs/report";

    private static GatewayHarness gateway(String schema, boolean signed) throws IOException {
        String keyFile = "";
        if (signed) {
            Path file = Files.createTempFile("fencegate-token-key", ".txt");
            file.toFile().deleteOnExit();
            Files.writeString(file, KEY + "\n");
            keyFile = file.toString();
        }
        SafetyConfig safety = new SafetyConfig(false, false, 100_000, keyFile);
        return GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> GatewayHarness.config(
                upstream, TestPostgres.config(schema), Duration.ofSeconds(5), Duration.ofSeconds(5), safety));
    }

    @Test
    void anUnsignedInstanceBesideSignedOnesRefusesWritesWith503AndItsReadyzSaysWhy() throws Exception {
        String schema = TestPostgres.newSchema("mixed_signing");
        try (GatewayHarness signed = gateway(schema, true)) {
            assertThat(put(signed, 5, true).statusCode()).isEqualTo(201);

            try (GatewayHarness unsigned = gateway(schema, false)) {
                HttpResponse<String> poison = put(unsigned, Long.MAX_VALUE, false);
                assertThat(poison.statusCode()).isEqualTo(503);
                assertThat(poison.body()).contains("--token-key-file");
                HttpResponse<String> readyz = readyz(unsigned);
                assertThat(readyz.statusCode()).isEqualTo(503);
                assertThat(readyz.body()).contains("admits unsigned tokens").contains("--token-key-file");
                assertThat(unsigned.fenceRow(PATH)).isEqualTo(5);
                assertThat(unsigned.store.appliedTo(PATH)).isEmpty();
            }
            assertThat(put(signed, 6, true).statusCode()).isEqualTo(204);
        }
    }

    /**
     * A signed deployment upgraded from a version that recorded no signing setting: its first
     * instance of this version records "signed" and keeps serving, and an unsigned one is refused.
     */
    @Test
    void aSignedDeploymentUpgradedFromAVersionThatRecordedNoSigningKeepsWritingAndAnUnsignedInstanceIsRefused()
            throws Exception {
        String schema = TestPostgres.newSchema("upgrade_signing");
        FenceNaming naming = FenceNaming.of("s3-path", List.of(), "", "");
        try (FenceDatabase earlier = FenceDatabase.open(TestPostgres.config(schema))) {
            Flyway.configure().dataSource(earlier.dataSource()).locations("classpath:db/migration").schemas(schema)
                    .defaultSchema(schema).createSchemas(true).target("12").load().migrate();
            recordAsAnEarlierVersion(earlier, naming);
        }
        try (GatewayHarness signed = gateway(schema, true)) {
            await().atMost(Duration.ofSeconds(10)).until(signed.gateway::ready);
            assertThat(put(signed, 5, true).statusCode()).isEqualTo(201);

            try (GatewayHarness unsigned = gateway(schema, false)) {
                assertThat(put(unsigned, Long.MAX_VALUE, false).statusCode()).isEqualTo(503);
                assertThat(readyz(unsigned).body()).contains("--token-key-file");
            }
            assertThat(signed.fenceRow(PATH)).isEqualTo(5);
            assertThat(put(signed, 6, true).statusCode()).isEqualTo(204);
        }
    }

    /** The row an earlier version writes: the naming alone, carried. */
    private static void recordAsAnEarlierVersion(FenceDatabase database, FenceNaming naming) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO fence_naming (naming, naming_key, carried,"
                     + " carried_naming) VALUES (?, ?, true, ?)")) {
            insert.setString(1, naming.text());
            insert.setString(2, NamingGuard.sessionKey(naming));
            insert.setString(3, naming.text());
            insert.executeUpdate();
        }
    }

    private static HttpResponse<String> put(GatewayHarness gateway, long token, boolean sign) {
        HttpRequest.Builder request = HttpRequest.newBuilder(gateway.uri(PATH)).header("Fencing-Token", Long.toString(token))
                .PUT(HttpRequest.BodyPublishers.ofString("x"));
        if (sign) {
            request.header("Fencing-Token-Signature", ISSUER.sign(new ResourceKey(PATH), new FencingToken(token)));
        }
        return gateway.send(request.build());
    }

    private static HttpResponse<String> readyz(GatewayHarness gateway) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + gateway.gateway.adminPort() + "/readyz")).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
