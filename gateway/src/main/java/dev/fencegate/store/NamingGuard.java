package dev.fencegate.store;

import dev.fencegate.fence.ExpiryTrust;
import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.ResourceNaming;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this instance's naming of resources ({@link ResourceNaming}) the one recorded beside the
 * fences, and refuses writes while it is not: two instances that name one object differently
 * would check it against two fences. Writes are served only within {@link #CONFIRMED_FOR} of a
 * check that found this naming recorded and carried, so an instance that stops checking (paused,
 * cut off) stops writing by itself; and the database itself writes a session's registrations only
 * while its naming is recorded and carried (migration V11), so a gateway paused anywhere past a
 * change registers nothing under the old naming. The first instance records its naming, carrying
 * the fences already there to its keys. An instance started with the change allowed records its
 * naming when the last carried one can be carried to it, waits until every instance under the old
 * one has stopped admitting (its confirmation lapsed, its batches ended, its registrations gone),
 * then raises each fence's key under the new naming to at least that fence, in one transaction
 * that holds other fence writes back. Whether tokens must be signed is recorded beside the naming
 * and compared the same way: an instance that admits unsigned tokens beside ones that require
 * signatures would let one write poison a fence for all of them. Nothing is renamed by it, so an
 * instance recording its setting (the first to read a record without one, or one allowed to
 * change it) carries nothing. Blocking: called on the fence-store monitor's thread.
 */
public final class NamingGuard {

    /** How long a check that found this naming recorded lets this instance serve writes. */
    public static final Duration CONFIRMED_FOR = Duration.ofSeconds(3);
    private static final Logger log = LoggerFactory.getLogger(NamingGuard.class);

    private record State(String refusal, long confirmedUntilNanos) {
    }

    private final NamingRecord record;
    private final ResourceNaming naming;
    private final String text;
    private final String key;
    private final boolean changeAllowed;
    private final boolean tokensSigned;
    private final Duration settle;
    private final LongSupplier nanoClock;
    private final ExpiryTrust expiry;
    private volatile State state = new State("writes refused: this instance's naming of resources is not checked"
            + " against the fence database yet", 0);
    /** When this instance saw the change it is making recorded; -1 when it makes none. Checking thread only. */
    private long changeSeenNanos = -1;
    /** When this instance recorded its signing setting over the other one; -1 when it did not. Checking thread only. */
    private long signingChangedNanos = -1;
    /** When this instance last removed expired registrations of others during a change; -1 if it did not. */
    private long expiredForgottenNanos = -1;
    /** The step of a change last logged. Checking thread only. */
    private String loggedStep;

    /**
     * @param changeAllowed whether this instance may record its naming over another one
     * @param tokensSigned  whether this instance requires every token to carry its issuer's signature
     * @param admissionBound how long after its confirmation lapsed another instance may still admit
     *                       a claim: a batch checks the confirmation as it starts, then may wait for
     *                       a connection and run its statement
     */
    public NamingGuard(DataSource dataSource, ResourceNaming naming, boolean changeAllowed, boolean tokensSigned,
                       UUID instance, Duration admissionBound, LongSupplier nanoClock) {
        this(dataSource, naming, changeAllowed, tokensSigned, instance, admissionBound, nanoClock, ExpiryTrust.unwatched());
    }

    /** @param expiry whether rows found expired may be taken as ended, after what the database's clock did */
    public NamingGuard(DataSource dataSource, ResourceNaming naming, boolean changeAllowed, boolean tokensSigned,
                       UUID instance, Duration admissionBound, LongSupplier nanoClock, ExpiryTrust expiry) {
        this.expiry = expiry;
        this.naming = naming;
        this.text = naming.text();
        this.key = sessionKey(naming);
        this.record = new NamingRecord(dataSource, naming, key, tokensSigned, instance);
        this.changeAllowed = changeAllowed;
        this.tokensSigned = tokensSigned;
        this.settle = CONFIRMED_FOR.plus(admissionBound).plusSeconds(1);
        this.nanoClock = nanoClock;
    }

    /** What a session of an instance with this naming sets as {@code fencegate.naming}: the SHA-256 of its text, in hex. */
    public static String sessionKey(ResourceNaming naming) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(naming.text().getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
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
        NamingRecord.Recorded recorded = record.readOrRecord();
        if (recorded.sessionKey() == null || !recorded.sessionKey().equals(key)) {
            changeSeenNanos = -1;
            refuse("this instance's database sessions do not carry its naming (fencegate.naming is '"
                    + (recorded.sessionKey() == null ? "" : recorded.sessionKey()) + "'), so the database cannot check"
                    + " it: a connection pooler may drop the startup options (PgBouncer's ignore_startup_parameters);"
                    + " connect the gateway straight to PostgreSQL");
            return;
        }
        if (recorded.naming().equals(text) && recorded.carried()) {
            confirmSigning(recorded.tokensSigned(), started);
            return;
        }
        if (!changeAllowed) {
            changeSeenNanos = -1;
            refuse(recorded.naming().equals(text)
                    ? "a change of the fence naming to this instance's (" + text + ") was started and is not finished;"
                    + " start an instance with --change-fence-naming to finish it"
                    : "this instance names resources as " + text + " but the fences were recorded under "
                    + recorded.naming() + (recorded.carried() ? "" : " (a change not finished yet)")
                    + "; every instance sharing a fence database must name resources alike"
                    + " (--store-kind, --virtual-host-domains, the --upstream path, --scopes), or be started with"
                    + " --change-fence-naming to carry the fences over");
            return;
        }
        if (!recorded.naming().equals(text)) {
            changeSeenNanos = -1;
            // While a change is not carried, nothing was served under it: what counts is the naming before it.
            String base = recorded.carried() ? recorded.naming() : recorded.carriedNaming();
            if (base.equals(text)) {
                if (record.takeBack(recorded.naming())) {
                    log.warn("Fence naming: the change to {}, never carried, is taken back to {}", recorded.naming(), text);
                    confirmSigning(recorded.tokensSigned(), started);
                } else {
                    refuse("the fence naming changed while this instance was taking a change back; checking again");
                }
                return;
            }
            Optional<String> why = naming.whyNotCarriedFrom(base);
            if (why.isPresent()) {
                refuse("the fence naming cannot be changed from " + base + " to " + text + ": " + why.get());
                return;
            }
            if (!record.recordChange(recorded)) {
                refuse("the fence naming changed while this instance was changing it; checking again");
                return;
            }
            log.warn("Fence naming changed from {} to {}: every instance refuses writes until the fences are carried over",
                    base, text);
        }
        if (changeSeenNanos < 0) {
            changeSeenNanos = nanoClock.getAsLong();
            expiredForgottenNanos = -1;
        }
        long waitedNanos = nanoClock.getAsLong() - changeSeenNanos;
        if (waitedNanos < settle.toNanos()) {
            changing("waiting " + settle.toMillis() + " ms from the change for instances under the old naming to stop"
                    + " admitting writes", " (" + Duration.ofNanos(waitedNanos).toMillis() + " ms so far)");
            return;
        }
        if (!registrationsEnded()) {
            return;
        }
        NamingRecord.Carry carried = record.carry();
        if (carried.outcome() == NamingRecord.Carry.Outcome.REGISTERED) {
            changing("waiting for the write registrations of other instances to end", " (one was renewed)");
            return;
        }
        if (carried.outcome() == NamingRecord.Carry.Outcome.NOT_CARRIABLE) {
            changeSeenNanos = -1;
            refuse("the change of the fence naming to " + text + " was recorded over a naming its fences cannot be"
                    + " carried from; take it back with an instance of the naming last carried and --change-fence-naming");
            return;
        }
        if (carried.outcome() == NamingRecord.Carry.Outcome.NAMING_CHANGED) {
            changeSeenNanos = -1;
            refuse("the fence naming changed while this instance was carrying the fences over; checking again");
            return;
        }
        changeSeenNanos = -1;
        if (carried.raised() >= 0) {
            log.warn("Fence naming is now {}: {} fence(s) raised to carry the ones recorded under the old naming",
                    text, carried.raised());
        }
        confirmSigning(recorded.tokensSigned(), started);
    }

    /**
     * Whether no other instance has a registration left. A live one is waited for. One that expired
     * without being withdrawn may belong to an instance that still sends under it (the database
     * clock jumped): it is removed, its instance told, and the change waits as long as a raise
     * waits for such a holder to hear of it.
     */
    private boolean registrationsEnded() throws SQLException {
        long live = record.otherRegistrations();
        if (live > 0) {
            changing("waiting for the write registrations of other instances to end", " (" + live + " now)");
            return false;
        }
        if (expiry.distrusted()) {
            changing("waiting a row length after the fence database's clock stepped forward: registrations found"
                    + " expired may still cover writes under way", "");
            return false;
        }
        long forgotten = record.forgetExpiredRegistrations();
        if (forgotten > 0) {
            expiredForgottenNanos = nanoClock.getAsLong();
        }
        if (expiredForgottenNanos >= 0
                && nanoClock.getAsLong() - expiredForgottenNanos < InstanceFences.EXPIRED_HOLDER_GRACE.toNanos()) {
            changing("waiting for instances whose registrations expired without being withdrawn to hear they were removed",
                    " (" + forgotten + " removed now)");
            return false;
        }
        return true;
    }

    /**
     * Confirms once this instance's signing setting is the one recorded. None recorded (a record an
     * earlier version wrote): this instance records its own and serves, as the first instance on a
     * new database does. The other one recorded, and this instance may change the naming: it
     * records its own, then serves only once instances with the other setting can no longer be
     * admitting (as long as a change of naming waits), so two instances allowed to change, with
     * different settings, take the record from each other and neither serves. Only the setting is
     * written; nothing is renamed, so no fence is carried or raised.
     */
    private void confirmSigning(Boolean recordedSigned, long startedNanos) throws SQLException {
        if (recordedSigned == null || (recordedSigned != tokensSigned && changeAllowed)) {
            if (!record.recordSigning(recordedSigned)) {
                refuse("the recorded token signing changed while this instance was recording its own; checking again");
                return;
            }
            if (recordedSigned == null) {
                log.info("Fence naming: tokens {} recorded (none was recorded yet)", signing(tokensSigned));
            } else {
                log.warn("Fence naming: tokens {} recorded over tokens {}: instances with the other setting refuse writes",
                        signing(tokensSigned), signing(recordedSigned));
                signingChangedNanos = nanoClock.getAsLong();
            }
        } else if (recordedSigned != tokensSigned) {
            signingChangedNanos = -1;
            refuse("this instance " + (tokensSigned ? "requires signed tokens (--token-key-file)" : "admits unsigned tokens"
                    + " (no --token-key-file)") + " but the fences are recorded as served with tokens " + signing(recordedSigned)
                    + "; an instance admitting unsigned tokens beside ones requiring signatures would let one write fence"
                    + " every holder out, so every instance sharing a fence database must set --token-key-file alike,"
                    + " or be started with --change-fence-naming to record its own setting");
            return;
        }
        if (signingChangedNanos >= 0) {
            long waitedNanos = nanoClock.getAsLong() - signingChangedNanos;
            if (waitedNanos < settle.toNanos()) {
                changing("waiting " + settle.toMillis() + " ms from recording tokens " + signing(tokensSigned)
                        + " for instances with the other setting to stop admitting writes",
                        " (" + Duration.ofNanos(waitedNanos).toMillis() + " ms so far)");
                return;
            }
            signingChangedNanos = -1;
        }
        confirm(startedNanos);
    }

    private static String signing(boolean signed) {
        return signed ? "signed" : "unsigned";
    }

    private void confirm(long startedNanos) {
        if (state.refusal() != null) {
            log.info("Fence naming: this instance's naming of resources is the one recorded: {}, tokens {}", text,
                    signing(tokensSigned));
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
}
