package dev.fencegate.store;

import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hears, on one connection of its own, which resources other instances are waiting to raise, so
 * this instance withdraws an idle registration at once instead of after its idle delay. Only
 * speeds hand-overs up: a missed notice costs a wait, never a wrong decision.
 */
public final class InflightListener implements AutoCloseable {

    public static final String CHANNEL = "fencegate_inflight";
    private static final Logger log = LoggerFactory.getLogger(InflightListener.class);
    private static final int POLL_MILLIS = 500;

    private final DataSource dataSource;
    private final Consumer<ResourceKey> wanted;
    private final Thread thread;
    private volatile boolean closed;

    public InflightListener(DataSource dataSource, Consumer<ResourceKey> wanted) {
        this.dataSource = dataSource;
        this.wanted = wanted;
        this.thread = new Thread(this::listen, "fence-inflight-listener");
        this.thread.setDaemon(true);
    }

    public InflightListener start() {
        thread.start();
        return this;
    }

    private void listen() {
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + CHANNEL);
                }
                PGConnection notices = connection.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] received = notices.getNotifications(POLL_MILLIS);
                    if (received != null) {
                        for (PGNotification notification : received) {
                            wanted.accept(new ResourceKey(notification.getParameter()));
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!closed) {
                    log.debug("in-flight listener lost its connection, reconnecting: {}", e.getMessage());
                    pause();
                }
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
