package dev.fencegate.store;

import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.ResultSet;
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
 * been heard; the ping reads back a mark the listening session set, so a pooler that runs the
 * ping on another session is found out. A missed notice costs a wait, never a wrong decision among gateways.
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
    /**
     * Set on the listening session to a value of its own and read back with every ping: a session
     * that answers without it is not the one that listens, so notices sent meanwhile may have been
     * delivered to nobody.
     */
    private static final String SESSION_MARK = "fencegate.listener";
    private static final String POOLED = "the session answering the listener's ping is not the one that listens";

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
                String session = UUID.randomUUID().toString();
                statement.execute("SET " + SESSION_MARK + " = '" + session + "'");
                statement.execute("LISTEN " + CHANNEL);
                statement.execute("LISTEN " + ROW_REMOVED_CHANNEL);
                PGConnection received = connection.unwrap(PGConnection.class);
                while (!closed) {
                    long asked = fences.now();
                    // The server sends what was notified before the ping ahead of its answer.
                    String answered = pingedSession(statement);
                    deliver(received.getNotifications());
                    if (!session.equals(answered)) {
                        throw new SQLException(pooled(answered));
                    }
                    fences.listenerConfirmed(asked);
                    deliver(received.getNotifications(POLL_MILLIS));
                }
            } catch (SQLException | RuntimeException e) {
                fences.listenerLost();
                if (!closed) {
                    if (e.getMessage() != null && e.getMessage().startsWith(POOLED)) {
                        log.error("in-flight listener: {}", e.getMessage());
                    } else {
                        log.debug("in-flight listener lost its connection, reconnecting: {}", e.getMessage());
                    }
                    pause();
                }
            }
        }
        fences.listenerLost();
    }

    /** The mark the session answering the ping carries: the one the listener set, unless a pooler moved it. */
    private static String pingedSession(Statement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery("SELECT current_setting('" + SESSION_MARK + "', true)")) {
            row.next();
            return row.getString(1);
        }
    }

    private static String pooled(String answered) {
        return POOLED + " (it carries '" + (answered == null ? "" : answered) + "'): a connection pooler in transaction or"
                + " statement mode hands a session's notices to whichever client it serves then, so raises go unheard;"
                + " held fences stay unused; connect the gateway straight to PostgreSQL or through session pooling";
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
