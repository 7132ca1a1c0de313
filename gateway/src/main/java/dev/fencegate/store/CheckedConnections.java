package dev.fencegate.store;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The pool's source of new connections: each is shown to the {@link DurabilityGuard}, which sets
 * its commits to wait for the disk or refuses a server that cannot keep them, and to the
 * {@link HistoryGuard}, before the pool may hand it out, so no statement runs on a session whose
 * commits can be lost, or on a server that lost commits this instance saw confirmed.
 * A restored or replaced database is reached through new connections only (its restart ended the
 * old ones), and a server in recovery gets none (so none outlives its promotion unchecked): the
 * first batch after a restore cannot admit on a fence that went back. Behind a connection pooler,
 * whose connections outlive the server's restart, the monitor's check each second looks again.
 */
final class CheckedConnections implements DataSource {

    private final DataSource connections;
    private final HistoryGuard history;
    private final DurabilityGuard durability;

    CheckedConnections(DataSource connections, HistoryGuard history, DurabilityGuard durability) {
        this.connections = connections;
        this.history = history;
        this.durability = durability;
    }

    @Override
    public Connection getConnection() throws SQLException {
        history.refuseIfWentBack();
        return verified(connections.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        history.refuseIfWentBack();
        return verified(connections.getConnection(username, password));
    }

    private Connection verified(Connection connection) throws SQLException {
        try {
            durability.verifySession(connection);
            history.verify(connection);
            return connection;
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return connections.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        connections.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        connections.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return connections.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return connections.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        return connections.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || connections.isWrapperFor(type);
    }
}
