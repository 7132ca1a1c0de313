package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.net.UnknownHostException;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** The one line start and readiness give for a database that cannot be used. */
class DatabaseProblemTest {

    /** The driver says only "The connection attempt failed."; the name that did not resolve is in its cause. */
    @Test
    void aHostNameThatDoesNotResolveIsNamedAsAnUnknownHost() {
        // .invalid never resolves (RFC 6761), so no DNS answer can make this reach a server.
        SQLException failure = catchThrowableOfType(
                () -> DriverManager.getConnection("jdbc:postgresql://db.invalid:5432/fences", "postgres", ""), SQLException.class);

        assertThat(DatabaseProblem.describe(failure))
                .isEqualTo("unknown host db.invalid (check the host and port in --db-url, and that PostgreSQL is running)");
    }

    @Test
    void anUnknownHostIsFoundUnderThePoolsOwnWrapper() {
        SQLException driver = new SQLException("The connection attempt failed.", "08001", new UnknownHostException("db.internal"));
        Throwable pool = new RuntimeException("Failed to initialize pool",
                new SQLTransientConnectionException("fencegate-fences - Connection is not available", driver));

        assertThat(DatabaseProblem.describe(pool)).startsWith("unknown host db.internal (check the host and port in --db-url");
    }

    /**
     * A role that may connect but not create in the fence schema (on PostgreSQL 15 and later, any
     * role but the database's owner, in the schema public) is told which grant the migration needs.
     */
    @Test
    void aRoleThatMayNotCreateTheFenceTablesIsToldWhatToGrant() {
        SQLException refused = new SQLException("ERROR: permission denied for schema public\n  Position: 14", "42501");

        assertThat(DatabaseProblem.describe(new RuntimeException("Unable to create the schema history table", refused)))
                .isEqualTo("ERROR: permission denied for schema public Position: 14 (the --db-user role lacks a privilege the"
                        + " gateway needs: it creates the fence schema's tables and writes to them; make it the database's owner,"
                        + " or grant it CREATE on the database, or on the schema in --db-schema)");
    }

    @Test
    void theServersOwnWordsStayWhenTheHostIsKnown() {
        SQLException refused = new SQLException("FATAL: database \"fences\" does not exist", "3D000");

        assertThat(DatabaseProblem.describe(new RuntimeException("wrapped", refused)))
                .isEqualTo("FATAL: database \"fences\" does not exist (check the database named in --db-url)");
    }
}
