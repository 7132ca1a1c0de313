package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code fence_inflight} churns: a row in and out per new object. Between vacuums its statistics
 * can show a handful of live rows beside a large heap and index, and a planner left to itself then
 * scans the whole heap for every claim's look for other instances' registrations. The gateway's
 * sessions look them up by key, always.
 */
class PlanShapeTest {

    private static final String LOOK = "EXPLAIN SELECT EXISTS (SELECT 1 FROM fence_inflight i WHERE i.resource = '/a' "
            + "AND i.instance <> gen_random_uuid() AND i.min_token < 5 AND i.until > now())";

    private static FenceDatabase database;
    private static String schema;

    @BeforeAll
    static void churn() throws SQLException {
        schema = TestPostgres.newSchema(PlanShapeTest.class.getSimpleName());
        database = FenceDatabase.open(TestPostgres.config(schema));
        database.migrate();
        try (Connection connection = plain(); Statement sql = connection.createStatement()) {
            sql.execute("SET search_path = " + schema);
            // A morning of new objects: many rows in and out, a few live, the index left large.
            sql.execute("INSERT INTO fence_inflight SELECT '/churn/' || g, gen_random_uuid(), 1, now(), 1 FROM generate_series(1, 100000) g");
            sql.execute("DELETE FROM fence_inflight WHERE resource LIKE '/churn/%' AND substr(resource, 8)::int > 50");
            sql.execute("VACUUM fence_inflight");
            sql.execute("ANALYZE fence_inflight");
        }
    }

    @AfterAll
    static void close() {
        if (database != null) {
            database.close();
        }
    }

    @Test
    void aChurnedRegistrationTableIsStillReadByKey() throws SQLException {
        try (Connection connection = plain(); Statement sql = connection.createStatement()) {
            sql.execute("SET search_path = " + schema);
            assertThat(plan(sql)).as("the setting this guards against: a planner left to itself").contains("Seq Scan");
        }
        try (Connection connection = database.dataSource().getConnection(); Statement sql = connection.createStatement()) {
            assertThat(plan(sql)).contains("Index").doesNotContain("Seq Scan");
        }
    }

    @Test
    void aStatementCostlyOnPaperIsNeverCompiledOnEachRun() throws SQLException {
        // A low jit_above_cost stands in for what missing or stale statistics do to the batch
        // statement's cost estimate.
        try (Connection connection = plain(); Statement sql = connection.createStatement()) {
            sql.execute("SET search_path = " + schema);
            sql.execute("SET jit_above_cost = 0");
            if (jitAvailable(sql)) {
                assertThat(analyzed(sql)).as("the setting this guards against: a server left to itself").contains("JIT:");
            }
        }
        try (Connection connection = database.dataSource().getConnection(); Statement sql = connection.createStatement()) {
            sql.execute("SET jit_above_cost = 0");
            assertThat(analyzed(sql)).doesNotContain("JIT:");
        }
    }

    private static boolean jitAvailable(Statement sql) throws SQLException {
        try (ResultSet row = sql.executeQuery("SELECT pg_jit_available()")) {
            return row.next() && row.getBoolean(1);
        }
    }

    private static String analyzed(Statement sql) throws SQLException {
        return explain(sql, "EXPLAIN ANALYZE " + LOOK.substring("EXPLAIN ".length()));
    }

    private static String plan(Statement sql) throws SQLException {
        return explain(sql, LOOK);
    }

    private static String explain(Statement sql, String explain) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rows = sql.executeQuery(explain)) {
            while (rows.next()) {
                plan.append(rows.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    private static Connection plain() throws SQLException {
        var server = TestPostgres.server();
        return DriverManager.getConnection(server.url(), server.user(), server.password());
    }
}
