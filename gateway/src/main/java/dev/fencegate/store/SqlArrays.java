package dev.fencegate.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.postgresql.PGConnection;

/**
 * The array parameters of the fence statements, in the binary form: the driver writes the
 * elements' bytes and lengths, and the server reads them as they are. The text form that
 * {@link Connection#createArrayOf} takes from boxed elements would be quoted and escaped here and
 * parsed again there, once per statement, on the fence-check path.
 */
final class SqlArrays {

    private SqlArrays() {
    }

    /** A {@code text[]}; a null element is SQL's NULL. */
    static Array texts(Connection connection, String[] values) throws SQLException {
        return connection.unwrap(PGConnection.class).createArrayOf("text", values);
    }

    static <T> Array texts(Connection connection, Collection<T> items, Function<T, String> value) throws SQLException {
        String[] values = new String[items.size()];
        int i = 0;
        for (T item : items) {
            values[i++] = value.apply(item);
        }
        return texts(connection, values);
    }

    /** A {@code bigint[]}. */
    static Array bigints(Connection connection, long[] values) throws SQLException {
        return connection.unwrap(PGConnection.class).createArrayOf("bigint", values);
    }

    static <T> Array bigints(Connection connection, Collection<T> items, ToLongFunction<T> value) throws SQLException {
        long[] values = new long[items.size()];
        int i = 0;
        for (T item : items) {
            values[i++] = value.applyAsLong(item);
        }
        return bigints(connection, values);
    }
}
