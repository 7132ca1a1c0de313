package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** A newcomer's machine may run no PostgreSQL: the demo and the tests then start an embedded one and say so. */
class LocalPostgresIT {

    @Test
    void anEmbeddedPostgresStartsWhenNoneAnswersAndTheOutputSaysWhich() throws Exception {
        try (LocalPostgres postgres = LocalPostgres.connectOrStart("jdbc:postgresql://127.0.0.1:1/nowhere", "postgres", "")) {
            assertThat(postgres.description()).startsWith("embedded PostgreSQL").contains("none answered at jdbc:postgresql://127.0.0.1:1/nowhere");
            try (Connection connection = DriverManager.getConnection(postgres.url(), postgres.user(), postgres.password());
                 ResultSet row = connection.createStatement().executeQuery("SELECT current_setting('fsync'), current_setting('synchronous_commit')")) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).as("fsync").isEqualTo("on");
                assertThat(row.getString(2)).as("synchronous_commit").isEqualTo("on");
            }
            // The durability guard, which refuses every write on a server that can lose a commit, accepts it.
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(postgres.url());
            dataSource.setUser(postgres.user());
            DurabilityGuard guard = new DurabilityGuard(false, false);
            try (Connection session = dataSource.getConnection()) {
                guard.check(session);
            }
            assertThat(guard.refusal()).isEmpty();
        }
    }

    /** A server that answers and refuses is a setting to fix, not a machine without PostgreSQL: no embedded one hides it. */
    @Test
    void aServerThatAnswersAndRefusesIsAnErrorNotAnEmbeddedServer() {
        String url = TestPostgres.server().url();
        assertThat(catchThrowable(() -> LocalPostgres.connectOrStart(url, "fencegate_no_such_role", "")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("the PostgreSQL at " + url + " answered and refused user fencegate_no_such_role: ")
                .hasMessageContaining("fencegate_no_such_role");
    }

    @Test
    void theConfiguredPostgresIsUsedWhenItAnswers() {
        String url = TestPostgres.server().url();
        try (LocalPostgres postgres = LocalPostgres.connectOrStart(url, "postgres", "")) {
            assertThat(postgres.description()).isEqualTo("PostgreSQL at " + url);
            assertThat(postgres.url()).isEqualTo(url);
        }
    }

    @Test
    void aDatabaseOfItsOwnIsDroppedOnCloseAndOnesLeftByDeadProcessesAreDroppedAtTheNextStart() throws SQLException {
        LocalPostgres server = TestPostgres.server();
        String abandoned = "fencegate_lpit_" + deadPid();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + abandoned);
        }

        LocalPostgres own = server.createDatabase("fencegate_lpit_");
        String name = "fencegate_lpit_" + ProcessHandle.current().pid();
        assertThat(own.url()).contains("/" + name);
        assertThat(databases(server)).contains(name).doesNotContain(abandoned);
        try (Connection inside = DriverManager.getConnection(own.url(), own.user(), own.password())) {
            own.close();
        }
        assertThat(databases(server)).doesNotContain(name);
    }

    /**
     * Containers sharing one server (host networking) number their processes each from 1: a
     * database named after a pid of another PID namespace is neither dropped as abandoned nor
     * taken over because its number is this process's, until it is a day old; one made in an
     * earlier boot is dropped, as its maker is gone.
     */
    @Test
    void aDatabaseMadeFromAnotherPidNamespaceIsNeitherDroppedNorTakenOverUntilItIsADayOld() throws SQLException {
        LocalPostgres server = TestPostgres.server();
        String now = "fencegate local database, made from pid namespace pid:[1], boot " + LocalPostgres.BOOT + ", at "
                + Instant.now().getEpochSecond();
        String twoDaysAgo = "fencegate local database, made from pid namespace pid:[1], boot " + LocalPostgres.BOOT + ", at "
                + Instant.now().minus(Duration.ofDays(2)).getEpochSecond();
        String earlierBoot = LocalPostgres.comment(Instant.now()).replace(", boot " + LocalPostgres.BOOT + ",", ", boot 0-earlier,");
        long pid = ProcessHandle.current().pid();
        long dead = deadPid();
        Map<String, String> made = new LinkedHashMap<>();
        made.put("fencegate_lpns_" + dead, now);
        made.put("fencegate_lpns_" + pid, now);
        made.put("fencegate_lpns_" + (dead + 1), twoDaysAgo);
        made.put("fencegate_lpns_" + 1, earlierBoot);
        // Made by a process of a system that names no boot (macOS, Windows): its own numbers, its own life.
        made.put("fencegate_lpns_" + (dead + 2), "fencegate local database, made from pid namespace , boot , at "
                + Instant.now().getEpochSecond());
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement statement = connection.createStatement()) {
            for (Map.Entry<String, String> database : made.entrySet()) {
                statement.execute("CREATE DATABASE " + database.getKey());
                statement.execute("COMMENT ON DATABASE " + database.getKey() + " IS '" + database.getValue() + "'");
            }
            try (LocalPostgres own = server.createDatabase("fencegate_lpns_")) {
                assertThat(own.url()).contains("/fencegate_lpns_" + pid + "_2");
                assertThat(databases(server)).as("another namespace's, made now, whatever their numbers")
                        .contains("fencegate_lpns_" + dead, "fencegate_lpns_" + pid, "fencegate_lpns_" + pid + "_2",
                                "fencegate_lpns_" + (dead + 2))
                        .as("another namespace's, two days old, and one of an earlier boot")
                        .doesNotContain("fencegate_lpns_" + (dead + 1), "fencegate_lpns_1");
            }
            assertThat(databases(server)).contains("fencegate_lpns_" + dead, "fencegate_lpns_" + pid)
                    .doesNotContain("fencegate_lpns_" + pid + "_2");
        } finally {
            try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
                 Statement statement = connection.createStatement()) {
                for (String name : made.keySet()) {
                    statement.execute("DROP DATABASE IF EXISTS " + name);
                }
            }
        }
    }

    private static long deadPid() {
        long pid = 4_000_000;
        while (ProcessHandle.of(pid).isPresent()) {
            pid++;
        }
        return pid;
    }

    private static java.util.List<String> databases(LocalPostgres server) throws SQLException {
        java.util.List<String> names = new java.util.ArrayList<>();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             ResultSet rows = connection.createStatement().executeQuery("SELECT datname FROM pg_database")) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }
}
