package dev.fencegate.store;

import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hears, on one connection of its own, which resources other instances are waiting to raise or
 * have raised: this instance then stops holding their fences and withdraws an idle registration
 * at once instead of after its idle delay. Between waits it pings the server, so held fences are
 * used only while this connection is known to be up and every notice sent before the ping has
 * been heard. A missed notice costs a wait, never a wrong decision among gateways.
 */
public final class InflightListener implements AutoCloseable {

    /** What the listener tells the registrations. */
    public interface Notices {
        /** Another instance waits on, or something raised, the fence of {@code resource}. */
        void wanted(ResourceKey resource);

        /** Every notice sent before {@code sinceNanos} (System.nanoTime) has been delivered. */
        void confirmed(long sinceNanos);

        /** The connection is gone: notices may be missed until it is back. */
        void lost();
    }

    public static final String CHANNEL = "fencegate_inflight";
    private static final Logger log = LoggerFactory.getLogger(InflightListener.class);
    private static final int POLL_MILLIS = 250;

    private final DataSource dataSource;
    private final Notices notices;
    private final Thread thread;
    private volatile boolean closed;

    public InflightListener(DataSource dataSource, Notices notices) {
        this.dataSource = dataSource;
        this.notices = notices;
        this.thread = new Thread(this::listen, "fence-inflight-listener");
        this.thread.setDaemon(true);
    }

    public InflightListener start() {
        thread.start();
        return this;
    }

    private void listen() {
        while (!closed) {
            try (Connection connection = dataSource.getConnection();
                 Statement statement = connection.createStatement()) {
                statement.execute("LISTEN " + CHANNEL);
                PGConnection received = connection.unwrap(PGConnection.class);
                while (!closed) {
                    long asked = System.nanoTime();
                    // The server sends what was notified before the ping ahead of its answer.
                    statement.execute("SELECT 1");
                    deliver(received.getNotifications());
                    notices.confirmed(asked);
                    deliver(received.getNotifications(POLL_MILLIS));
                }
            } catch (SQLException | RuntimeException e) {
                notices.lost();
                if (!closed) {
                    log.debug("in-flight listener lost its connection, reconnecting: {}", e.getMessage());
                    pause();
                }
            }
        }
        notices.lost();
    }

    private void deliver(PGNotification[] batch) {
        if (batch != null) {
            for (PGNotification notification : batch) {
                String resource = notification.getParameter();
                if (resource != null && !resource.isEmpty()) {
                    notices.wanted(new ResourceKey(resource));
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
