package dev.fencegate.client;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** Connections to the real database until {@code cut} is set, then to a port where nothing listens. */
final class SwitchedDataSource implements DataSource {

    private final DataSource real;
    private final DataSource nowhere;
    private final AtomicBoolean cut;

    SwitchedDataSource(DataSource real, DataSource nowhere, AtomicBoolean cut) {
        this.real = real;
        this.nowhere = nowhere;
        this.cut = cut;
    }

    private DataSource current() {
        return cut.get() ? nowhere : real;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return current().getConnection();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return current().getConnection(user, password);
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return false;
    }
}
