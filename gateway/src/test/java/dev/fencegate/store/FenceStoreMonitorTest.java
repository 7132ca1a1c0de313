package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.admin.Readiness;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.http.FenceNaming;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The checks behind readiness and the refusal of writes, beside the history guard's commits. */
class FenceStoreMonitorTest {

    private static final FenceNaming NAMING = FenceNaming.of("s3-path", List.of(), "", "");

    private final DatabaseConfig config = TestPostgres.config(TestPostgres.newSchema("store_monitor"));
    private final UUID instance = UUID.randomUUID();
    private final HistoryGuard history = new HistoryGuard(instance, false, false);
    private final DurabilityGuard durability = new DurabilityGuard(false, false);
    private final FenceDatabase database = FenceDatabase.open(config, NamingGuard.sessionKey(NAMING), false, history, durability);
    private final Readiness readiness = new Readiness();
    private final FenceStoreMonitor monitor = new FenceStoreMonitor(database, durability,
            history, new NamingGuard(database.dataSource(), NAMING, false, false, instance, Duration.ofSeconds(5), System::nanoTime),
            readiness);

    @AfterEach
    void close() {
        monitor.close();
        database.close();
    }

    /**
     * A lock on either table a write needs (a migration rebuilding keys, an operator's
     * transaction) refuses the writes that must reach the database: readiness says so too, and
     * comes back when the lock goes.
     */
    @Test
    void aLockOnEitherTableWritesNeedMakesTheInstanceUnreadyUntilItGoes() throws SQLException {
        readiness.serving();
        monitor.start(Duration.ofMillis(200), Duration.ofMillis(500));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(readiness::ready);
        for (String table : List.of("fence", "fence_inflight")) {
            try (Connection blocking = database.dataSource().getConnection(); Statement statement = blocking.createStatement()) {
                blocking.setAutoCommit(false);
                statement.execute("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
                Awaitility.await(table + " locked").atMost(Duration.ofSeconds(10)).until(() -> !readiness.ready());
                assertThat(readiness.describe()).as(table).contains("fence store unavailable");
                blocking.rollback();
            }
            Awaitility.await(table + " unlocked").atMost(Duration.ofSeconds(10)).until(readiness::ready);
        }
    }

    /**
     * A commit can wait, as for a synchronous standby that answers late: the history guard's
     * commit waits on a thread of its own, and the checks, readiness and the naming's confirmation
     * (which writes would be refused without) go on meanwhile.
     */
    @Test
    void aHistoryCommitThatWaitsHoldsBackNeitherReadinessNorWrites() throws SQLException {
        readiness.serving();
        monitor.start(Duration.ofMillis(200), Duration.ofMillis(500));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> history.confirmedPosition() > 0);

        long held;
        try (Connection blocking = database.dataSource().getConnection(); Statement statement = blocking.createStatement()) {
            blocking.setAutoCommit(false);
            statement.execute("LOCK TABLE fence_confirmation IN EXCLUSIVE MODE");
            held = history.confirmedPosition();
            long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
            while (System.nanoTime() < until) {
                assertThat(readiness.ready()).as(readiness.describe()).isTrue();
                assertThat(monitor.refusal()).isEmpty();
                Awaitility.await().pollDelay(Duration.ofMillis(100)).until(() -> true);
            }
            assertThat(history.confirmedPosition()).as("no commit got past the lock").isEqualTo(held);
            blocking.rollback();
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> history.confirmedPosition() > held
                && readiness.ready() && monitor.refusal().isEmpty());
    }

    /**
     * A --db-schema spelt wrong makes a fresh fence schema beside the fleet's, and the instance
     * admits every token for every resource: nothing can tell that from a first start, but a schema
     * made beside others that hold fences is said at WARN; a schema started again is not.
     */
    @Test
    void aFenceSchemaMadeBesideAnotherThatHoldsFencesIsSaidAtWarn() {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> warnings = new ch.qos.logback.core.read.ListAppender<>();
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(FenceStoreMonitor.class);
        warnings.start();
        logger.addAppender(warnings);
        try {
            readiness.serving();
            monitor.start(Duration.ofMillis(200), Duration.ofMillis(500));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(readiness::ready);
            DatabaseConfig misspelt = TestPostgres.config(TestPostgres.newSchema("store_monitor_misspelt"));
            for (int start = 0; start < 2; start++) {
                warnings.list.clear();
                Readiness secondReadiness = new Readiness();
                HistoryGuard secondHistory = new HistoryGuard(UUID.randomUUID(), false, false);
                try (FenceDatabase second = FenceDatabase.open(misspelt, NamingGuard.sessionKey(NAMING), false, secondHistory, durability);
                     FenceStoreMonitor secondMonitor = new FenceStoreMonitor(second, durability, secondHistory,
                             new NamingGuard(second.dataSource(), NAMING, false, false, UUID.randomUUID(), Duration.ofSeconds(5),
                                     System::nanoTime), secondReadiness)) {
                    secondReadiness.serving();
                    secondMonitor.start(Duration.ofMillis(200), Duration.ofMillis(500));
                    Awaitility.await().atMost(Duration.ofSeconds(10)).until(secondReadiness::ready);
                }
                List<String> said = warnings.list.stream().filter(event -> event.getLevel() == ch.qos.logback.classic.Level.WARN)
                        .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
                if (start == 0) {
                    assertThat(said).as("the first start, which made the schema").anySatisfy(line ->
                            assertThat(line).contains("Fence schema created empty now").contains("hold the gateway's tables"));
                } else {
                    assertThat(said).as("a start on the schema made before").noneMatch(line -> line.contains("created empty"));
                }
            }
        } finally {
            logger.detachAppender(warnings);
        }
    }
}
