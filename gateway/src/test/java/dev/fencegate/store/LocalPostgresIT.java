package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
            DurabilityGuard guard = new DurabilityGuard(dataSource, false, false);
            guard.check();
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
     * taken over because its number is this process's.
     */
    @Test
    void aDatabaseMadeFromAnotherPidNamespaceIsNeitherDroppedNorTakenOver() throws SQLException {
        LocalPostgres server = TestPostgres.server();
        String foreign = "'" + LocalPostgres.COMMENT + "pid:[1] boot another-container'";
        String deadThere = "fencegate_lpns_" + deadPid();
        String oursThere = "fencegate_lpns_" + ProcessHandle.current().pid();
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
             Statement statement = connection.createStatement()) {
            for (String name : new String[] {deadThere, oursThere}) {
                statement.execute("CREATE DATABASE " + name);
                statement.execute("COMMENT ON DATABASE " + name + " IS " + foreign);
            }
            try (LocalPostgres own = server.createDatabase("fencegate_lpns_")) {
                assertThat(own.url()).contains("/" + oursThere + "_2");
                assertThat(databases(server)).contains(deadThere, oursThere, oursThere + "_2");
            }
            assertThat(databases(server)).contains(deadThere, oursThere).doesNotContain(oursThere + "_2");
        } finally {
            try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
                 Statement statement = connection.createStatement()) {
                statement.execute("DROP DATABASE IF EXISTS " + deadThere);
                statement.execute("DROP DATABASE IF EXISTS " + oursThere);
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
