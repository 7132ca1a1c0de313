package dev.fencegate.store;

import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceKey;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
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
 * instead of after its idle delay. About every quarter second another session sends a probe on
 * this instance's own channel, and held fences are used only while probes come back: a probe
 * heard proves the connection up and every notice committed before it delivered, and it comes
 * as a raise's notice does, while the listening session waits, so a connection pooler that
 * hands an idle session's notices to no client loses the probes too. A missed notice costs a
 * wait, never a wrong decision among gateways.
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
    private static final SecureRandom NONCES = new SecureRandom();
    private static final int POLL_MILLIS = 250;
    /** A probe not heard back in this long is taken as lost, and another is sent. */
    private static final long RESEND_NANOS = 4L * POLL_MILLIS * 1_000_000;
    /** How long probes may go unheard before the listener says so. */
    private static final long UNHEARD_NANOS = 5_000_000_000L;
    /** A wait for notices this much longer than asked is a pause of the process (a GC, a stopped process, a suspended VM). */
    private static final long PAUSED_NANOS = 2_000_000_000L;

    private final DataSource dataSource;
    private final InstanceFences fences;
    private final RememberedFences remembered;
    private final String instance;
    /** This instance's own channel: only its listener acts on the probes sent on it (any session may send or listen there). */
    private final String probeChannel;
    private final Thread thread;
    private volatile boolean closed;
    /**
     * Since when the listener has failed to listen, or listened without hearing a probe back,
     * with no probe heard in between; and whether it said so. Listener thread only.
     */
    private long failingSince;
    private boolean failing;
    private boolean failingSaid;

    public InflightListener(DataSource dataSource, InstanceFences fences, RememberedFences remembered, UUID instance) {
        this.dataSource = dataSource;
        this.fences = fences;
        this.remembered = remembered;
        this.instance = instance.toString();
        this.probeChannel = "fencegate_probe_" + this.instance.replace("-", "");
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
                statement.execute("LISTEN " + probeChannel);
                fences.listenerListening();
                listen(statement, connection.unwrap(PGConnection.class));
            } catch (SQLException | RuntimeException e) {
                fences.listenerLost();
                if (!closed) {
                    long now = System.nanoTime();
                    if (!failing) {
                        failing = true;
                        failingSince = now;
                    } else if (!failingSaid && now - failingSince >= UNHEARD_NANOS) {
                        failingSaid = true;
                        log.error("in-flight listener: cannot listen for raises for {} ms, retrying: {}; until it can, held"
                                + " fences stay unused and every write is judged by the database", (now - failingSince) / 1_000_000,
                                DatabaseProblem.describe(e));
                    }
                    log.debug("in-flight listener lost its connection, reconnecting: {}", e.getMessage());
                    pause();
                }
            }
        }
        fences.listenerLost();
    }

    /**
     * Delivers notices as they come and sends a probe about every {@link #POLL_MILLIS}: one at a
     * time, another only once it came back or was taken as lost. Paced by the system clock; a
     * probe heard confirms the listener as of the owner's clock when it was sent.
     */
    private void listen(Statement listening, PGConnection received) throws SQLException {
        Probe outstanding = null;
        long nextDue = System.nanoTime();
        long lastHeard = nextDue;
        boolean unheardSaid = false;
        while (!closed) {
            long now = System.nanoTime();
            boolean lost = outstanding != null && now - outstanding.sentNanos() >= RESEND_NANOS;
            if (outstanding == null && now - nextDue >= 0 || lost) {
                if (!unheardSaid && now - lastHeard >= UNHEARD_NANOS) {
                    unheardSaid = true;
                    log.error("in-flight listener: its own probe notices have not come back for {} ms: notices reach its"
                            + " session late or not at all (the database is too busy to deliver them, or a connection pooler"
                            + " in transaction or statement mode drops an idle session's notices); held fences stay unused"
                            + " until they do", (now - lastHeard) / 1_000_000);
                }
                // The listening connection itself answers first, within the socket timeout: one gone
                // silent (no FIN, no RST) is replaced as a dropped one is, not waited on for hours.
                listening.execute("SELECT 1");
                // The owner's clock is read before the probe commits: every notice committed before then is ahead of it.
                outstanding = new Probe(nonce(), now, fences.now());
                probe(outstanding.nonce());
            }
            long until = outstanding != null ? outstanding.sentNanos() + RESEND_NANOS : nextDue;
            int waitMillis = (int) Math.max(1, Math.min(POLL_MILLIS, (until - System.nanoTime()) / 1_000_000));
            long waitStarted = System.nanoTime();
            PGNotification[] notices = received.getNotifications(waitMillis);
            long waitEnded = System.nanoTime();
            if (waitEnded - waitStarted - waitMillis * 1_000_000L >= PAUSED_NANOS) {
                // The wait, which reads notices already in hand, ran far past its time: this process
                // was paused, and the probes' silence says nothing about their delivery yet.
                lastHeard = waitEnded;
            }
            if (deliver(notices, outstanding == null ? null : outstanding.nonce())) {
                fences.listenerConfirmed(outstanding.askedNanos());
                // Not earlier than a pause just seen: the probe sent before it says nothing of the time since.
                if (outstanding.sentNanos() - lastHeard > 0) {
                    lastHeard = outstanding.sentNanos();
                }
                nextDue = outstanding.sentNanos() + POLL_MILLIS * 1_000_000L;
                unheardSaid = false;
                outstanding = null;
                if (failingSaid) {
                    log.info("in-flight listener: listening again");
                }
                failing = false;
                failingSaid = false;
            }
        }
    }

    /**
     * Sends {@code nonce} on this instance's probe channel from another session: it reaches the
     * listening session as a raise's notice does, while that session waits, and after every
     * notice committed before it. One that cannot be sent (the pool busy, the database slow) is
     * a probe lost, not a listener lost: the listening connection answers for itself.
     */
    private void probe(String nonce) {
        try (Connection sender = dataSource.getConnection();
             PreparedStatement notify = sender.prepareStatement("SELECT pg_notify(?, ?)")) {
            notify.setString(1, probeChannel);
            notify.setString(2, nonce);
            notify.execute();
        } catch (SQLException e) {
            log.debug("in-flight listener: probe {} not sent: {}", nonce, e.getMessage());
        }
    }

    /**
     * A nonce no other session can guess. Any role that may connect can listen on the probe channel
     * and send to it: one that sent the next of a counted sequence ahead of the probe would confirm
     * the listener as of a moment when notices committed before it had not reached it. A copy sent
     * after hearing the real one commits after it, so confirms nothing early.
     */
    private static String nonce() {
        byte[] bytes = new byte[16];
        NONCES.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** A probe sent: its nonce, when by the system clock, and the owner's clock just before it was committed. */
    private record Probe(String nonce, long sentNanos, long askedNanos) {
    }

    /** Acts on each notice of {@code batch}; whether the probe {@code awaited} (if any) was among them. */
    private boolean deliver(PGNotification[] batch, String awaited) {
        boolean probeHeard = false;
        if (batch != null) {
            for (PGNotification notification : batch) {
                if (probeChannel.equals(notification.getName())) {
                    probeHeard |= notification.getParameter().equals(awaited);
                } else if (ROW_REMOVED_CHANNEL.equals(notification.getName())) {
                    removed(notification.getParameter());
                } else {
                    heard(notification.getParameter());
                }
            }
        }
        return probeHeard;
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
        if (payload.isEmpty()) {
            // Names no resource: no gateway or trigger sends it. Ignored, not taken for a lost connection.
            return;
        }
        ResourceKey resource = new ResourceKey(payload);
        fences.heard(resource, token);
        if (token.isPresent()) {
            remembered.heardOf(resource, token.getAsLong());
        }
    }

    /**
     * An instance's expired row for a resource was removed: if it was this instance's, as for a
     * change made outside the gateways; whoever's it was, a grace this instance began for it is over.
     */
    private void removed(String payload) {
        int separator = payload == null ? -1 : payload.indexOf(TOKEN_SEPARATOR);
        if (separator <= 0 || separator == payload.length() - 1) {
            // An instance or a resource missing: no trigger sends it. Ignored, as in heard().
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
