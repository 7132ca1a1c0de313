package dev.fencegate.store;

import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hears, on one connection of its own, which resources any instance (this one included) is
 * waiting to raise or has raised, and to which token: this instance then stops holding their
 * fences, stops sending its writes below that token, and withdraws an idle registration at once
 * instead of after its idle delay. Between waits it pings the server, so held fences are
 * used only while this connection is known to be up and every notice sent before the ping has
 * been heard. A missed notice costs a wait, never a wrong decision among gateways.
 */
public final class InflightListener implements AutoCloseable {

    public static final String CHANNEL = "fencegate_inflight";
    /**
     * Where a raise that removed another instance's expired row says so: {@code instance\nresource}.
     * Only that instance acts on it (its own listener hears the raiser's notices too).
     */
    static final String ROW_REMOVED_CHANNEL = "fencegate_inflight_removed";
    /** Separates the resource from the token in a gateway's notice; a notice without it (the table's trigger) names any token. */
    static final char TOKEN_SEPARATOR = '\n';
    private static final Logger log = LoggerFactory.getLogger(InflightListener.class);
    private static final int POLL_MILLIS = 250;

    private final DataSource dataSource;
    private final InstanceFences fences;
    private final RememberedFences remembered;
    private final String instance;
    private final Thread thread;
    private volatile boolean closed;

    public InflightListener(DataSource dataSource, InstanceFences fences, RememberedFences remembered, UUID instance) {
        this.dataSource = dataSource;
        this.fences = fences;
        this.remembered = remembered;
        this.instance = instance.toString();
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
                statement.execute("LISTEN " + ROW_REMOVED_CHANNEL);
                PGConnection received = connection.unwrap(PGConnection.class);
                while (!closed) {
                    long asked = fences.now();
                    // The server sends what was notified before the ping ahead of its answer.
                    statement.execute("SELECT 1");
                    deliver(received.getNotifications());
                    fences.listenerConfirmed(asked);
                    deliver(received.getNotifications(POLL_MILLIS));
                }
            } catch (SQLException | RuntimeException e) {
                fences.listenerLost();
                if (!closed) {
                    log.debug("in-flight listener lost its connection, reconnecting: {}", e.getMessage());
                    pause();
                }
            }
        }
        fences.listenerLost();
    }

    private void deliver(PGNotification[] batch) {
        if (batch != null) {
            for (PGNotification notification : batch) {
                if (ROW_REMOVED_CHANNEL.equals(notification.getName())) {
                    removed(notification.getParameter());
                } else {
                    heard(notification.getParameter());
                }
            }
        }
    }

    /** {@code resource\ntoken} from a gateway, or {@code resource} alone from the table's trigger: the token is then unknown. */
    private void heard(String payload) {
        if (payload == null || payload.isEmpty()) {
            return;
        }
        int separator = payload.lastIndexOf(TOKEN_SEPARATOR);
        OptionalLong token = OptionalLong.empty();
        if (separator >= 0) {
            try {
                token = OptionalLong.of(Long.parseLong(payload.substring(separator + 1)));
            } catch (NumberFormatException e) {
                token = OptionalLong.empty();
            }
            payload = payload.substring(0, separator);
        }
        ResourceKey resource = new ResourceKey(payload);
        fences.heard(resource, token);
        if (token.isPresent()) {
            remembered.raisedTo(resource, token.getAsLong());
        }
    }

    /**
     * An instance's expired row for a resource was removed: if it was this instance's, as for a
     * change made outside the gateways; whoever's it was, a grace this instance began for it is over.
     */
    private void removed(String payload) {
        int separator = payload == null ? -1 : payload.indexOf(TOKEN_SEPARATOR);
        if (separator <= 0) {
            return;
        }
        ResourceKey resource = new ResourceKey(payload.substring(separator + 1));
        if (payload.substring(0, separator).equals(instance)) {
            fences.heard(resource, OptionalLong.empty());
        }
        fences.expiredHolderGraceServed(resource);
    }

    /** A gateway's notice that the fence of {@code resource} is raised to {@code token}, or about to be. */
    static String notice(ResourceKey resource, long token) {
        return resource.value() + TOKEN_SEPARATOR + token;
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
