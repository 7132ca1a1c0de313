package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the history guard takes as confirmed, and what it does with a server found behind that. */
class HistoryGuardTest {

    /** Migrated by the tests that talk to a server; the WAL position tests need none. */
    private FenceDatabase database;

    private FenceDatabase database() {
        if (database == null) {
            database = TestPostgres.migrated("history_guard");
        }
        return database;
    }

    @AfterEach
    void close() {
        if (database != null) {
            database.close();
        }
    }

    @Test
    void aConfirmedCommitMovesThePositionForwardAndTheSameServerPassesEveryNewConnection() throws SQLException {
        HistoryGuard guard = new HistoryGuard(UUID.randomUUID(), false, false);
        try (Connection connection = database().dataSource().getConnection()) {
            guard.confirm(connection);
            long first = guard.confirmedPosition();
            assertThat(first).isPositive();
            guard.confirm(connection);
            assertThat(guard.confirmedPosition()).isGreaterThan(first);
            guard.verify(connection);
        }
        assertThat(guard.refusal()).isEmpty();
    }

    /**
     * A commit acknowledged before it is on disk (or on the synchronous standbys) can be lost, and
     * a session read before it is written shows a WAL position behind it though nothing was lost:
     * it confirms nothing, so it can neither stand for a history nor raise a false alarm.
     */
    @Test
    void aCommitAcknowledgedBeforeItIsOnDiskConfirmsNothing() throws SQLException {
        HistoryGuard guard = new HistoryGuard(UUID.randomUUID(), false, false);
        try (Connection connection = database().dataSource().getConnection(); Statement statement = connection.createStatement()) {
            for (String setting : new String[] {"off", "local"}) {
                statement.execute("SET synchronous_commit = " + setting);
                guard.confirm(connection);
                assertThat(guard.confirmedPosition()).as("synchronous_commit = " + setting).isZero();
            }
            statement.execute("SET synchronous_commit = on");
            guard.confirm(connection);
            assertThat(guard.confirmedPosition()).isPositive();
        }
    }

    @Test
    void aServerBehindTheConfirmedPositionIsRefusedAndSoIsEveryConnectionAfterIt() throws SQLException {
        HistoryGuard guard = new HistoryGuard(UUID.randomUUID(), false, false);
        try (Connection connection = database().dataSource().getConnection()) {
            guard.confirm(connection);
            long confirmed = guard.confirmedPosition();

            SQLException behind = catchThrowableOfType(SQLException.class, () -> guard.compare(confirmed - 1, confirmed));
            assertThat(behind.getSQLState()).isEqualTo("55000");
            assertThat(behind.getMessage()).startsWith("the fence database went back: its WAL is at "
                    + HistoryGuard.format(confirmed - 1) + ", before " + HistoryGuard.format(confirmed));
            assertThat(guard.refusal()).contains(behind.getMessage());

            // The same server, now ahead again, is refused all the same: what was lost stays lost.
            assertThatThrownBy(() -> guard.verify(connection)).isInstanceOf(SQLException.class)
                    .hasMessage(behind.getMessage());
            assertThatThrownBy(() -> guard.confirm(connection)).isInstanceOf(SQLException.class);
            assertThat(guard.confirmedPosition()).isEqualTo(confirmed);
        }
    }

    @Test
    void withUnsafeDurabilityAllowedAHistoryThatWentBackIsLoggedAndWritesGoOnFromWhereItIs() throws SQLException {
        HistoryGuard guard = new HistoryGuard(UUID.randomUUID(), true, false);
        try (Connection connection = database().dataSource().getConnection()) {
            guard.confirm(connection);
            long confirmed = guard.confirmedPosition();
            guard.compare(confirmed - 1, confirmed);
            assertThat(guard.refusal()).isEmpty();
            assertThat(guard.confirmedPosition()).isEqualTo(confirmed - 1);
            guard.verify(connection);
        }
    }

    /**
     * A commit confirmed while a new connection's position is being read lies past that position,
     * though nothing was lost: the position is held against what was confirmed before the read.
     */
    @Test
    void aCommitConfirmedWhileANewConnectionIsReadIsNoAlarm() throws SQLException {
        HistoryGuard guard = new HistoryGuard(UUID.randomUUID(), false, false);
        try (Connection confirming = database().dataSource().getConnection();
             Connection fresh = database().dataSource().getConnection()) {
            guard.confirm(confirming);
            guard.verify(confirmedDuringEachRead(fresh, () -> guard.confirm(confirming)));
            assertThat(guard.refusal()).isEmpty();
        }
    }

    /** A connection whose every query is answered, then followed by {@code meanwhile}, before the answer is handed back. */
    private static Connection confirmedDuringEachRead(Connection connection, SqlAction meanwhile) {
        return (Connection) Proxy.newProxyInstance(HistoryGuardTest.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object result = method.invoke(connection, args);
                    if (!(result instanceof Statement statement)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(HistoryGuardTest.class.getClassLoader(), new Class<?>[] {Statement.class},
                            (statementProxy, call, callArgs) -> {
                                Object answer = call.invoke(statement, callArgs);
                                if (call.getName().equals("executeQuery")) {
                                    meanwhile.run();
                                }
                                return answer;
                            });
                });
    }

    private interface SqlAction {
        void run() throws SQLException;
    }

    @Test
    void underRequireSyncStandbyACommitWithNoStandbyNamedConfirmsNothing() throws SQLException {
        HistoryGuard guard = new HistoryGuard(UUID.randomUUID(), false, true);
        try (Connection connection = database().dataSource().getConnection()) {
            guard.confirm(connection);
        }
        assertThat(guard.confirmedPosition()).isZero();
    }

    @Test
    void walPositionsReadAsPostgreSQLWritesThem() {
        assertThat(HistoryGuard.parse("0/0")).isZero();
        assertThat(HistoryGuard.parse("16/B374D848")).isEqualTo(0x16_B374_D848L);
        assertThat(HistoryGuard.parse("FFFFFFFF/FFFFFFFF")).isEqualTo(-1L);
        for (long position : new long[] {0, 1, 0x16_B374_D848L, Long.MAX_VALUE, -1L}) {
            assertThat(HistoryGuard.parse(HistoryGuard.format(position))).isEqualTo(position);
        }
        assertThat(HistoryGuard.format(0x16_B374_D848L)).isEqualTo("16/B374D848");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1", "/1", "1/", "1/2/3", "100000000/0", "0/100000000", "-1/0", "g/0"})
    void anythingElseIsNotAWalPosition(String text) {
        assertThatThrownBy(() -> HistoryGuard.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }
}
