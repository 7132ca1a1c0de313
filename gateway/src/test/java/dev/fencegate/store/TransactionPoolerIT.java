package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.testing.PgBouncer;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The setup the README says not to run, tried with a real PgBouncer in transaction mode: it hands
 * the notices an idle server session receives to no client, so a listener behind it never hears a
 * raise. Its probes are lost the same way, so it never confirms, and no held fence is used.
 */
class TransactionPoolerIT {

    @Test
    void aListenerBehindATransactionPoolerNeverConfirmsSoNoHeldFenceIsUsed() throws Exception {
        FenceDatabase database = TestPostgres.migrated(TransactionPoolerIT.class.getSimpleName());
        DatabaseConfig direct = TestPostgres.config("unused");
        try (PgBouncer bouncer = PgBouncer.transactionMode(direct.url())) {
            PGSimpleDataSource pooled = new PGSimpleDataSource();
            pooled.setURL(bouncer.url());
            pooled.setUser(direct.user());
            pooled.setPassword(direct.password());
            try (Connection connection = pooled.getConnection(); Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("SELECT 1")) {
                assertThat(row.next()).as("PgBouncer serves queries").isTrue();
            }
            InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), UUID.randomUUID()),
                    HeldFencesTest.TIMING, System::nanoTime);
            try (InflightListener listener = new InflightListener(pooled, fences, new RememberedFences(100), UUID.randomUUID()).start()) {
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> !fences.hearsRaises());
            }
            // The same listener on a direct connection confirms: the probes themselves work.
            try (InflightListener listener = new InflightListener(database.dataSource(), fences, new RememberedFences(100),
                    UUID.randomUUID()).start()) {
                await().atMost(Duration.ofSeconds(5)).until(fences::hearsRaises);
            }
        } finally {
            database.close();
        }
    }
}
