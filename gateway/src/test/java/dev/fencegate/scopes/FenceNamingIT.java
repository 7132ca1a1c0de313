package dev.fencegate.scopes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.ScopeConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.store.FenceDatabase;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Instances sharing fences must name objects alike: a gateway whose job scopes differ from the
 * ones the fences were recorded under would check an object against another fence. Adopting
 * scopes on a running deployment is the case that matters: every object written so far has a
 * fence of its own, and the job it falls under has none yet.
 */
@ExtendWith(NoNettyLeaks.class)
class FenceNamingIT {

    private static final String JOBS = "/{bucket}/jobs/{job}/**";

    private static GatewayHarness gateway(String schema, String scopes, boolean changeNaming) {
        return GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> {
            GatewayConfig base = GatewayHarness.config(upstream, TestPostgres.config(schema), Duration.ofSeconds(5));
            return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                    base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(), base.limits(),
                    base.safety(), base.ioThreads(), base.operations(), new ScopeConfig(scopes, false, changeNaming));
        });
    }

    @Test
    void aStaleWriterCannotPassThroughAnInstanceThatNamesResourcesOtherwiseNorAfterScopesAreAdopted() {
        String schema = TestPostgres.newSchema("fence_naming");
        try (GatewayHarness perObject = gateway(schema, "", false)) {
            assertThat(perObject.put("/data/jobs/42/part-0.parquet", 7, "holder 7").statusCode()).isEqualTo(201);

            // An instance started with scopes beside it would fence this object under /data/jobs/42,
            // which has no fence yet: token 5 would pass. It refuses every write instead.
            try (GatewayHarness scoped = gateway(schema, JOBS, false)) {
                HttpResponse<String> stale = scoped.put("/data/jobs/42/part-0.parquet", 5, "paused holder 5");
                assertThat(stale.statusCode()).isEqualTo(503);
                assertThat(stale.body()).contains("--change-fence-naming");
                assertThat(scoped.store.object("/data/jobs/42/part-0.parquet")).isEmpty();
                assertThat(scoped.gateway.ready()).isFalse();
                assertThat(scoped.put("/data/jobs/42/part-1.parquet", 100, "x").statusCode()).isEqualTo(503);
                assertThat(scoped.fenceRow("/data/jobs/42")).isEqualTo(-1);
            }
            assertThat(perObject.put("/data/jobs/42/part-0.parquet", 7, "holder 7 again").statusCode()).isEqualTo(204);
        }

        // Scopes adopted: the job's fence starts at the highest fence of its objects.
        try (GatewayHarness adopting = gateway(schema, JOBS, true)) {
            await().atMost(Duration.ofSeconds(30)).until(adopting.gateway::ready);
            assertThat(adopting.fenceRow("/data/jobs/42")).isEqualTo(7);

            HttpResponse<String> stale = adopting.put("/data/jobs/42/part-1.parquet", 5, "paused holder 5");
            assertThat(stale.statusCode()).isEqualTo(412);
            assertThat(stale.body()).contains("\"resource\":\"/data/jobs/42\"");
            assertThat(adopting.store.object("/data/jobs/42/part-1.parquet")).isEmpty();
            assertThat(adopting.put("/data/jobs/42/part-1.parquet", 7, "holder 7").statusCode()).isEqualTo(201);
        }

        // The old naming is gone for good: an instance without the scopes refuses writes.
        try (GatewayHarness late = gateway(schema, "", false)) {
            assertThat(late.put("/data/jobs/42/part-0.parquet", 7, "x").statusCode()).isEqualTo(503);
        }
    }

    /**
     * An instance whose naming is not the one recorded cannot tell which fence an object's writes
     * are checked against: a fence read through it says so, rather than that the object has none.
     */
    @Test
    void aFenceReadThroughAnInstanceWhoseNamingDoesNotHoldSaysSoRatherThanNoFence() throws Exception {
        String schema = TestPostgres.newSchema("naming_read");
        try (GatewayHarness scoped = gateway(schema, JOBS, false)) {
            assertThat(scoped.put("/data/jobs/42/part-0.parquet", 31, "holder 31").statusCode()).isEqualTo(201);
            try (GatewayHarness perObject = gateway(schema, "", false)) {
                HttpResponse<String> read = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + perObject.gateway.adminPort() + "/fences/%2Fdata%2Fjobs%2F42%2Fpart-0.parquet")).build(),
                        HttpResponse.BodyHandlers.ofString());

                assertThat(read.statusCode()).as(read.body()).isEqualTo(503);
                assertThat(read.body()).contains("cannot tell which fence");
            }
        }
    }

    /**
     * Scopes adopted over a job whose own key one holder wrote at a lower token and whose object
     * another holder wrote at a higher one: the job's fence is the object's, holder included, so
     * the holder at that token writes on and its guard does not trip, and the other is refused.
     */
    @Test
    void aHolderWhoseObjectsFenceIsCarriedToItsJobWritesOnAtItsToken() {
        String schema = TestPostgres.newSchema("carried_holder");
        try (GatewayHarness perObject = gateway(schema, "", false)) {
            assertThat(perObject.put("/data/jobs/42/", 5, "worker-X", "job marker").statusCode()).isEqualTo(201);
            assertThat(perObject.put("/data/jobs/42/part-0", 9, "worker-Y", "part 0").statusCode()).isEqualTo(201);
        }
        try (GatewayHarness adopting = gateway(schema, JOBS, true)) {
            await().atMost(Duration.ofSeconds(30)).until(adopting.gateway::ready);
            assertThat(adopting.fenceRow("/data/jobs/42")).isEqualTo(9);

            HttpResponse<String> next = adopting.put("/data/jobs/42/part-1", 9, "worker-Y", "part 1");
            assertThat(next.statusCode()).as(next.body()).isEqualTo(201);
            HttpResponse<String> other = adopting.put("/data/jobs/42/part-2", 9, "worker-X", "part 2");
            assertThat(other.statusCode()).isEqualTo(412);
            assertThat(other.body()).contains("reused-token");
        }
    }

    /**
     * An earlier version kept fences with no naming recorded. The first instance of this one records
     * its own, and scopes set during the upgrade start from the fences their objects already have.
     */
    @Test
    void scopesSetDuringAnUpgradeStartFromTheFencesTheEarlierVersionRecorded() throws SQLException {
        String schema = TestPostgres.newSchema("upgrade_naming");
        try (FenceDatabase earlier = FenceDatabase.open(TestPostgres.config(schema))) {
            Flyway.configure().dataSource(earlier.dataSource()).locations("classpath:db/migration").schemas(schema)
                    .defaultSchema(schema).createSchemas(true).target("10").load().migrate();
            // The fence row as that version wrote it (this version's statements need the schema's later migrations).
            try (Connection connection = earlier.dataSource().getConnection();
                 PreparedStatement insert = connection.prepareStatement("INSERT INTO fence (resource, token) VALUES (?, 7)")) {
                insert.setString(1, "/data/jobs/42/part-0.parquet");
                insert.executeUpdate();
            }
        }
        try (GatewayHarness scoped = gateway(schema, JOBS, false)) {
            assertThat(scoped.fenceRow("/data/jobs/42")).isEqualTo(7);

            HttpResponse<String> stale = scoped.put("/data/jobs/42/part-0.parquet", 5, "paused holder 5");

            assertThat(stale.statusCode()).isEqualTo(412);
            assertThat(scoped.store.object("/data/jobs/42/part-0.parquet")).isEmpty();
        }
    }
}
