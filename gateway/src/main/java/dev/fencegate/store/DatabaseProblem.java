package dev.fencegate.store;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;

/**
 * One line an operator can act on, from whatever the pool, Flyway or the driver threw: the
 * server's own words (the deepest SQL error in the chain, such as {@code FATAL: database "x" does
 * not exist}), and which setting to look at. Pool and migration wrappers only say that they
 * waited, which hides the cause.
 */
final class DatabaseProblem {

    private DatabaseProblem() {
    }

    static String describe(Throwable failure) {
        SQLException deepestSql = null;
        UnknownHostException unknownHost = null;
        Throwable root = failure;
        for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                deepestSql = sql;
            }
            if (t instanceof UnknownHostException host) {
                unknownHost = host;
            }
            root = t;
        }
        // The driver's own words for a name that does not resolve are only "The connection attempt failed."
        if (unknownHost != null) {
            String host = unknownHost.getMessage() == null ? "" : " " + unknownHost.getMessage();
            return oneLine("unknown host" + host) + hint(deepestSql, unknownHost);
        }
        Throwable named = deepestSql != null ? deepestSql : root;
        String words = named.getMessage() == null ? named.getClass().getSimpleName() : named.getMessage();
        return oneLine(words) + hint(deepestSql, root);
    }

    /**
     * Whether a statement that failed so may have committed all the same: its connection was lost
     * or cut (class 08, an I/O error, a server shutting down, class 57P0), so its answer may be all
     * that went missing. Any other error (a lock or statement timeout, a conflict, a refusal by a
     * trigger) was raised by the server inside the statement, which then rolled back.
     */
    static boolean mayHaveCommitted(SQLException failure) {
        String state = failure.getSQLState();
        return state == null || state.startsWith("08") || state.startsWith("57P0");
    }

    private static String hint(SQLException sql, Throwable root) {
        String state = sql == null ? "" : sql.getSQLState();
        if (state.equals("28P01") || state.equals("28000")) {
            return " (check --db-user and --db-password)";
        }
        if (state.equals("3D000")) {
            return " (check the database named in --db-url)";
        }
        if (state.equals("42501")) {
            // Most often at the first start: PostgreSQL 15 and later no longer let every role create in the schema public.
            return " (the --db-user role lacks a privilege the gateway needs: it creates the fence schema's tables and"
                    + " writes to them; make it the database's owner, or grant it CREATE on the database, or on the schema"
                    + " in --db-schema)";
        }
        if (state.startsWith("08") || root instanceof ConnectException || root instanceof UnknownHostException) {
            return " (check the host and port in --db-url, and that PostgreSQL is running)";
        }
        return "";
    }

    private static String oneLine(String text) {
        return text.strip().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }
}
