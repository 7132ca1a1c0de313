package dev.fencegate.store;

import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.ResourceNaming;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this instance's naming of resources ({@link ResourceNaming}) the one recorded beside the
 * fences, and refuses writes while it is not: two instances that name one object differently
 * would check it against two fences. Writes are served only within {@link #CONFIRMED_FOR} of a
 * check that found this naming recorded and carried, so an instance that stops checking (paused,
 * cut off) stops writing by itself. An instance started with the change allowed records its
 * naming when the recorded one can be carried to it, waits until every instance under the old one
 * has stopped admitting (its confirmation lapsed, its batches ended, its registrations gone), then
 * raises each fence's key under the new naming to at least that fence, in one transaction.
 * Blocking: called on the fence-store monitor's thread.
 */
public final class NamingGuard {

    /** How long a check that found this naming recorded lets this instance serve writes. */
    public static final Duration CONFIRMED_FOR = Duration.ofSeconds(3);
    private static final Logger log = LoggerFactory.getLogger(NamingGuard.class);
    private static final int CARRY_BATCH = 10_000;

    private record Recorded(String naming, boolean carried) {
    }

    private record State(String refusal, long confirmedUntilNanos) {
    }

    private final DataSource dataSource;
    private final ResourceNaming naming;
    private final String text;
    private final boolean changeAllowed;
    private final UUID instance;
    private final Duration settle;
    private final LongSupplier nanoClock;
    private volatile State state = new State("writes refused: this instance's naming of resources is not checked"
            + " against the fence database yet", 0);
    /** When this instance saw the change it is making recorded; -1 when it makes none. Checking thread only. */
    private long changeSeenNanos = -1;
    /** The step of a change last logged. Checking thread only. */
    private String loggedStep;

    /**
     * @param changeAllowed whether this instance may record its naming over another one
     * @param admissionBound how long after its confirmation lapsed another instance may still admit
     *                       a claim: one that was waiting for its batch, and the batch's statement
     */
    public NamingGuard(DataSource dataSource, ResourceNaming naming, boolean changeAllowed, UUID instance,
                       Duration admissionBound, LongSupplier nanoClock) {
        this.dataSource = dataSource;
        this.naming = naming;
        this.text = naming.text();
        this.changeAllowed = changeAllowed;
        this.instance = instance;
        this.settle = CONFIRMED_FOR.plus(admissionBound).plusSeconds(1);
        this.nanoClock = nanoClock;
    }

    /** Why writes must be refused now, or empty. Called for every claim: reads a volatile and the clock. */
    public Optional<String> refusal() {
        State current = state;
        if (current.refusal() != null) {
            return Optional.of(current.refusal());
        }
        if (nanoClock.getAsLong() - current.confirmedUntilNanos() >= 0) {
            return Optional.of("writes refused: this instance's naming of resources was last confirmed against the"
                    + " fence database more than " + CONFIRMED_FOR.toSeconds() + " s ago");
        }
        return Optional.empty();
    }

    /** Reads the recorded naming, records or carries it when this instance may, and decides. */
    public void check() throws SQLException {
        long started = nanoClock.getAsLong();
        Recorded recorded = readOrRecord();
        if (recorded.naming().equals(text) && recorded.carried()) {
            confirm(started, "this instance's naming of resources is the one recorded: " + text);
            return;
        }
        if (!changeAllowed) {
            changeSeenNanos = -1;
            refuse(recorded.naming().equals(text)
                    ? "a change of the fence naming to this instance's (" + text + ") was started and is not finished;"
                    + " start an instance with --change-fence-naming to finish it"
                    : "this instance names resources as " + text + " but the fences were recorded under "
                    + recorded.naming() + "; every instance sharing a fence database must name resources alike"
                    + " (--store-kind, --virtual-host-domains, the --upstream path, --scopes), or be started with"
                    + " --change-fence-naming to carry the fences over");
            return;
        }
        if (!recorded.naming().equals(text)) {
            changeSeenNanos = -1;
            Optional<String> why = naming.whyNotCarriedFrom(recorded.naming());
            if (why.isPresent()) {
                refuse("the fence naming cannot be changed from " + recorded.naming() + " to " + text + ": " + why.get());
                return;
            }
            if (!recordChange(recorded.naming())) {
                refuse("the fence naming changed while this instance was changing it; checking again");
                return;
            }
            log.warn("Fence naming changed from {} to {}: every instance refuses writes until the fences are carried over",
                    recorded.naming(), text);
        }
        if (changeSeenNanos < 0) {
            changeSeenNanos = nanoClock.getAsLong();
        }
        long waitedNanos = nanoClock.getAsLong() - changeSeenNanos;
        if (waitedNanos < settle.toNanos()) {
            changing("waiting " + settle.toMillis() + " ms from the change for instances under the old naming to stop"
                    + " admitting writes", " (" + Duration.ofNanos(waitedNanos).toMillis() + " ms so far)");
            return;
        }
        long others = otherRegistrations();
        if (others > 0) {
            changing("waiting for the write registrations of other instances to end", " (" + others + " now)");
            return;
        }
        Carry carried = carry();
        if (!carried.done()) {
            changeSeenNanos = -1;
            refuse("the fence naming changed while this instance was carrying the fences over; checking again");
            return;
        }
        changeSeenNanos = -1;
        if (carried.raised() >= 0) {
            log.warn("Fence naming is now {}: {} fence(s) raised to carry the ones recorded under the old naming",
                    text, carried.raised());
        }
        confirm(started, "this instance's naming of resources is the one recorded: " + text);
    }

    private void confirm(long startedNanos, String words) {
        if (state.refusal() != null) {
            log.info("Fence naming: {}", words);
        }
        loggedStep = null;
        state = new State(null, startedNanos + CONFIRMED_FOR.toNanos());
    }

    private void refuse(String words) {
        String refusal = "writes refused: " + words;
        if (!refusal.equals(state.refusal())) {
            log.error("Fence naming: {}", words);
        }
        state = new State(refusal, 0);
    }

    /** Refuses while a change this instance makes is under way; logged once per step, not at every check. */
    private void changing(String step, String now) {
        if (!step.equals(loggedStep)) {
            log.warn("Fence naming: changing to {}: {}", text, step);
            loggedStep = step;
        }
        state = new State("writes refused: changing the fence naming to " + text + ": " + step + now, 0);
    }

    private Recorded readOrRecord() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            Optional<Recorded> recorded = read(connection);
            if (recorded.isPresent()) {
                return recorded.get();
            }
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO fence_naming (naming, carried) VALUES (?, true) ON CONFLICT (only_row) DO NOTHING")) {
                insert.setString(1, text);
                if (insert.executeUpdate() == 1) {
                    log.info("Fence naming recorded: {}", text);
                }
            }
            return read(connection).orElseThrow(() -> new SQLException("fence_naming has no row after recording one"));
        }
    }

    private static Optional<Recorded> read(Connection connection) throws SQLException {
        try (Statement select = connection.createStatement();
             ResultSet row = select.executeQuery("SELECT naming, carried FROM fence_naming")) {
            return row.next() ? Optional.of(new Recorded(row.getString(1), row.getBoolean(2))) : Optional.empty();
        }
    }

    private boolean recordChange(String from) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement(
                     "UPDATE fence_naming SET naming = ?, carried = false, changed_at = now() WHERE naming = ?")) {
            update.setString(1, text);
            update.setString(2, from);
            return update.executeUpdate() == 1;
        }
    }

    private long otherRegistrations() throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(
                     "SELECT count(*) FROM fence_inflight WHERE instance <> ? AND until > now()")) {
            select.setObject(1, instance);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /** Whether the change is carried (by this instance, or one before it), and how many fences this one raised (-1: none tried). */
    private record Carry(boolean done, long raised) {
    }

    private Carry carry() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                Optional<Recorded> recorded;
                try (Statement lock = connection.createStatement();
                     ResultSet row = lock.executeQuery("SELECT naming, carried FROM fence_naming FOR UPDATE")) {
                    recorded = row.next() ? Optional.of(new Recorded(row.getString(1), row.getBoolean(2))) : Optional.empty();
                }
                if (recorded.isEmpty() || !recorded.get().naming().equals(text)) {
                    connection.rollback();
                    return new Carry(false, -1);
                }
                if (recorded.get().carried()) {
                    connection.commit();
                    return new Carry(true, -1);
                }
                Map<String, Long> raises = raisesToCarry(connection);
                long raised = raise(connection, raises);
                try (Statement done = connection.createStatement()) {
                    done.executeUpdate("UPDATE fence_naming SET carried = true, changed_at = now()");
                }
                connection.commit();
                return new Carry(true, raised);
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    /** Every key a recorded fence moves up to, with the highest fence that moves there. */
    private Map<String, Long> raisesToCarry(Connection connection) throws SQLException {
        Function<ResourceKey, Optional<ResourceKey>> carrier = naming.carrier();
        Map<String, Long> raises = new HashMap<>();
        try (Statement select = connection.createStatement()) {
            select.setFetchSize(CARRY_BATCH);
            try (ResultSet row = select.executeQuery("SELECT resource, token FROM fence")) {
                while (row.next()) {
                    long token = row.getLong(2);
                    carrier.apply(new ResourceKey(row.getString(1)))
                            .ifPresent(key -> raises.merge(key.value(), token, Math::max));
                }
            }
        }
        return raises;
    }

    private static long raise(Connection connection, Map<String, Long> raises) throws SQLException {
        long raised = 0;
        String[] keys = raises.keySet().toArray(String[]::new);
        try (PreparedStatement upsert = connection.prepareStatement("""
                INSERT INTO fence AS f (resource, token) SELECT * FROM unnest(?::text[], ?::bigint[])
                ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at = now()
                    WHERE f.token < EXCLUDED.token""")) {
            for (int from = 0; from < keys.length; from += CARRY_BATCH) {
                int to = Math.min(keys.length, from + CARRY_BATCH);
                String[] batch = Arrays.copyOfRange(keys, from, to);
                Long[] tokens = new Long[batch.length];
                for (int i = 0; i < batch.length; i++) {
                    tokens[i] = raises.get(batch[i]);
                }
                Array keyArray = connection.createArrayOf("text", batch);
                Array tokenArray = connection.createArrayOf("bigint", tokens);
                upsert.setArray(1, keyArray);
                upsert.setArray(2, tokenArray);
                raised += upsert.executeUpdate();
            }
        }
        return raised;
    }
}
