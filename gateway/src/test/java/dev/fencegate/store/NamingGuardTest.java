package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.fence.ExpiryTrust;
import dev.fencegate.fence.InstanceFences;
import dev.fencegate.http.FenceNaming;
import dev.fencegate.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One naming of resources per fence database, against a real PostgreSQL on a clock the test moves:
 * an instance that names objects otherwise refuses writes, and a change carries every fence up
 * only once no instance can still be admitting under the old naming.
 */
class NamingGuardTest {

    private static final FenceNaming PER_OBJECT = FenceNaming.of("s3-path", List.of(), "", "");
    private static final FenceNaming JOBS = FenceNaming.of("s3-path", List.of(), "", "/{bucket}/jobs/{job}/**");
    private static final Duration ADMISSION_BOUND = Duration.ofSeconds(5);
    private static final Duration SETTLE = NamingGuard.CONFIRMED_FOR.plus(ADMISSION_BOUND).plusSeconds(1);
    private static final Duration ROW_LENGTH = Duration.ofSeconds(63);

    private final FenceInstance.FakeClock clock = new FenceInstance.FakeClock();
    private final String schema = TestPostgres.newSchema("naming_guard");
    private FenceDatabase database;
    private final List<FenceDatabase> pools = new ArrayList<>();

    @BeforeEach
    void migrate() {
        database = FenceDatabase.open(TestPostgres.config(schema));
        database.migrate();
    }

    @AfterEach
    void close() {
        pools.forEach(FenceDatabase::close);
        database.close();
    }

    /** A guard on a pool of its own whose sessions carry its naming, as the gateway's do; tokens unsigned. */
    private NamingGuard guard(FenceNaming naming, boolean changeAllowed) {
        return guard(naming, changeAllowed, false);
    }

    private NamingGuard guard(FenceNaming naming, boolean changeAllowed, boolean tokensSigned) {
        return guard(naming, changeAllowed, tokensSigned, new ExpiryTrust(ROW_LENGTH, clock::now));
    }

    private NamingGuard guard(FenceNaming naming, boolean changeAllowed, boolean tokensSigned, ExpiryTrust expiry) {
        DatabaseConfig config = TestPostgres.config(schema);
        FenceDatabase pool = FenceDatabase.open(new DatabaseConfig(config.url(), schema, config.user(), config.password(), 1,
                config.checkTimeout()), NamingGuard.sessionKey(naming), tokensSigned);
        pools.add(pool);
        return new NamingGuard(pool.dataSource(), naming, changeAllowed, tokensSigned, UUID.randomUUID(), ADMISSION_BOUND,
                clock::now, expiry);
    }

    @Test
    void theFirstInstanceRecordsItsNamingAndItsConfirmationLapsesWhenItStopsChecking() throws SQLException {
        NamingGuard first = guard(PER_OBJECT, false);
        assertThat(first.refusal()).hasValueSatisfying(why -> assertThat(why).contains("not checked"));

        first.check();
        assertThat(first.refusal()).isEmpty();
        assertThat(recorded()).isEqualTo(PER_OBJECT.text());

        clock.advance(NamingGuard.CONFIRMED_FOR.minusMillis(1));
        assertThat(first.refusal()).isEmpty();
        clock.advance(Duration.ofMillis(1));
        assertThat(first.refusal()).hasValueSatisfying(why -> assertThat(why).contains("last confirmed"));
        first.check();
        assertThat(first.refusal()).isEmpty();
    }

    @Test
    void anInstanceThatNamesResourcesOtherwiseRefusesWritesAndChangesNothing() throws SQLException {
        guard(PER_OBJECT, false).check();
        insertFence("/data/jobs/42/part-0", 7);

        NamingGuard scoped = guard(JOBS, false);
        scoped.check();
        clock.advance(SETTLE.multipliedBy(2));
        scoped.check();

        assertThat(scoped.refusal()).hasValueSatisfying(why -> assertThat(why)
                .contains(JOBS.text()).contains(PER_OBJECT.text()).contains("--change-fence-naming"));
        assertThat(recorded()).isEqualTo(PER_OBJECT.text());
        assertThat(fence("/data/jobs/42")).isEqualTo(-1);
    }

    @Test
    void aChangeWaitsForEveryAdmissionUnderTheOldNamingThenCarriesEachFenceUpToItsScope() throws SQLException {
        NamingGuard old = guard(PER_OBJECT, false);
        old.check();
        insertFence("/data/jobs/42/part-0", 7);
        insertFence("/data/jobs/42/part-1", 9);
        insertFence("/data/jobs/43/part-0", 3);
        insertFence("/data/jobs/43", 5);
        insertFence("/data/tmp/file", 11);

        NamingGuard changing = guard(JOBS, true);
        changing.check();
        assertThat(recorded()).isEqualTo(JOBS.text());
        assertThat(carried()).isFalse();
        assertThat(changing.refusal()).hasValueSatisfying(why -> assertThat(why).contains("waiting"));

        // The old instance's next check sees the change: it stops at once, not when its confirmation lapses.
        old.check();
        assertThat(old.refusal()).hasValueSatisfying(why -> assertThat(why).contains("fences were recorded under"));

        clock.advance(SETTLE.minusMillis(1));
        changing.check();
        assertThat(changing.refusal()).hasValueSatisfying(why -> assertThat(why).contains("ms so far"));
        assertThat(fence("/data/jobs/42")).isEqualTo(-1);

        // A write another instance registered is still in flight: its object's fence may yet move.
        UUID other = UUID.randomUUID();
        execute("INSERT INTO fence_inflight (resource, instance, min_token, until, generation)"
                + " VALUES ('/data/jobs/42/part-2', '" + other + "', 8, now() + interval '1 minute', 1)");
        clock.advance(Duration.ofMillis(1));
        changing.check();
        assertThat(changing.refusal()).hasValueSatisfying(why -> assertThat(why).contains("write registrations of other instances").contains("(1 now)"));
        assertThat(fence("/data/jobs/42")).isEqualTo(-1);

        execute("DELETE FROM fence_inflight");
        changing.check();
        assertThat(changing.refusal()).isEmpty();
        assertThat(carried()).isTrue();
        assertThat(fence("/data/jobs/42")).isEqualTo(9);
        assertThat(fence("/data/jobs/43")).isEqualTo(5);
        assertThat(fence("/data/jobs/42/part-0")).isEqualTo(7);
        assertThat(fence("/data/tmp/file")).isEqualTo(11);

        NamingGuard later = guard(JOBS, false);
        later.check();
        assertThat(later.refusal()).isEmpty();
    }

    /**
     * A scope's fence takes the holder of the fence its token came from: a job whose own row was
     * written by one holder at a lower token, and whose object another holder wrote at a higher one,
     * is fenced at the higher token under that holder, who writes on. Where the holders at the
     * carried token disagree, the row names none, so nobody admitted at that token is refused.
     */
    @Test
    void aCarriedFenceTakesTheHolderOfTheFenceItsTokenCameFrom() throws SQLException {
        guard(PER_OBJECT, false).check();
        insertFence("/data/jobs/42", 5, "worker-X");
        insertFence("/data/jobs/42/part-0", 9, "worker-Y");
        insertFence("/data/jobs/43/part-0", 9, "worker-A");
        insertFence("/data/jobs/43/part-1", 9, "worker-B");
        insertFence("/data/jobs/43/part-2", 4, "worker-C");
        insertFence("/data/jobs/44", 9, "worker-X");
        insertFence("/data/jobs/44/part-0", 9, "worker-Y");
        insertFence("/data/jobs/45", 9, "worker-X");
        insertFence("/data/jobs/45/part-0", 9, "worker-X");
        insertFence("/data/jobs/46", 12, "worker-X");
        insertFence("/data/jobs/46/part-0", 9, "worker-Y");
        insertFence("/data/jobs/47/part-0", 3, "worker-A");
        insertFence("/data/jobs/47/part-1", 8, "worker-B");

        NamingGuard changing = guard(JOBS, true);
        changing.check();
        clock.advance(SETTLE);
        changing.check();
        assertThat(changing.refusal()).isEmpty();

        assertThat(fenceWithHolder("/data/jobs/42")).as("raised: the holder comes with the token").isEqualTo("9 worker-Y");
        assertThat(fenceWithHolder("/data/jobs/43")).as("tied holders disagree").isEqualTo("9 null");
        assertThat(fenceWithHolder("/data/jobs/44")).as("at the carried token, another holder").isEqualTo("9 null");
        assertThat(fenceWithHolder("/data/jobs/45")).as("at the carried token, the same holder").isEqualTo("9 worker-X");
        assertThat(fenceWithHolder("/data/jobs/46")).as("above the carried token").isEqualTo("12 worker-X");
        assertThat(fenceWithHolder("/data/jobs/47")).as("created from the highest").isEqualTo("8 worker-B");
    }

    @Test
    void aChangeLeftUnfinishedIsNotServedUntilAnInstanceAllowedToChangeFinishesIt() throws SQLException {
        guard(PER_OBJECT, false).check();
        insertFence("/data/jobs/42/part-0", 7);
        guard(JOBS, true).check();

        NamingGuard plain = guard(JOBS, false);
        plain.check();
        assertThat(plain.refusal()).hasValueSatisfying(why -> assertThat(why).contains("not finished"));

        NamingGuard finishing = guard(JOBS, true);
        finishing.check();
        clock.advance(SETTLE);
        finishing.check();
        assertThat(finishing.refusal()).isEmpty();
        assertThat(fence("/data/jobs/42")).isEqualTo(7);
        plain.check();
        assertThat(plain.refusal()).isEmpty();
    }

    @Test
    void theFirstNamingRecordedCarriesTheFencesAnEarlierVersionLeft() throws SQLException {
        insertFence("/data/jobs/42/part-0", 7);

        NamingGuard first = guard(JOBS, false);
        first.check();

        assertThat(first.refusal()).isEmpty();
        assertThat(fence("/data/jobs/42")).isEqualTo(7);
    }

    /**
     * Earlier versions accepted nested templates, which this one refuses at start: a deployment
     * that recorded them drops the deeper one with a naming change, and the deeper one's keys are
     * carried up to the job's key, which covers the same objects.
     */
    @Test
    void nestedTemplatesAnEarlierVersionRecordedAreDroppedByCarryingTheirKeysUp() throws SQLException {
        FenceNaming nested = new FenceNaming("s3-path", List.of(), "", List.of("/{_}/jobs/{_}/out/**", "/{_}/jobs/{_}/**"));
        guard(JOBS, false).check();
        execute("UPDATE fence_naming SET naming = '" + nested.text() + "', carried_naming = '" + nested.text()
                + "', naming_key = '" + NamingGuard.sessionKey(nested) + "'");
        insertFence("/data/jobs/42/out", 9);
        insertFence("/data/jobs/42", 4);

        NamingGuard change = guard(JOBS, true);
        change.check();
        assertThat(recorded()).isEqualTo(JOBS.text());
        clock.advance(SETTLE);
        change.check();

        assertThat(change.refusal()).isEmpty();
        assertThat(carried()).isTrue();
        assertThat(fence("/data/jobs/42")).isEqualTo(9);
    }

    @Test
    void aChangeNeverCarriedCanBeTakenBack() throws SQLException {
        guard(JOBS, false).check();
        insertFence("/data/jobs/42", 7);
        insertFence("/data/runs/1/part-0", 7);
        FenceNaming mistaken = FenceNaming.of("s3-path", List.of(), "", "/{bucket}/jobs/{job}/**,/{bucket}/runs/{run}/**");
        guard(mistaken, true).check();
        assertThat(recorded()).isEqualTo(mistaken.text());

        NamingGuard back = guard(JOBS, true);
        back.check();

        assertThat(back.refusal()).isEmpty();
        assertThat(recorded()).isEqualTo(JOBS.text());
        assertThat(carried()).isTrue();
        assertThat(fence("/data/runs/1")).as("never carried to the mistaken naming's key").isEqualTo(-1);
    }

    /**
     * The database writes a gateway session's registrations only under the naming recorded and
     * carried: a gateway paused past a change cannot register a write under the old one.
     */
    @Test
    void aRegistrationIsWrittenOnlyUnderTheNamingRecordedAndCarried() throws SQLException {
        guard(PER_OBJECT, false).check();
        try (FenceDatabase old = FenceDatabase.open(TestPostgres.config(schema), NamingGuard.sessionKey(PER_OBJECT))) {
            registerAs(old, "/data/jobs/42/part-0");

            guard(JOBS, true).check();

            assertThatThrownBy(() -> registerAs(old, "/data/jobs/42/part-1")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("names resources otherwise");
            try (FenceDatabase current = FenceDatabase.open(TestPostgres.config(schema), NamingGuard.sessionKey(JOBS))) {
                assertThatThrownBy(() -> registerAs(current, "/data/jobs/42")).as("not carried yet").isInstanceOf(SQLException.class);
            }
        }
    }

    @Test
    void aChangeRemovesRegistrationsThatExpiredWithoutBeingWithdrawnAndGivesTheirInstancesTimeToHear() throws SQLException {
        guard(PER_OBJECT, false).check();
        execute("INSERT INTO fence_inflight (resource, instance, min_token, until, generation)"
                + " VALUES ('/data/jobs/42/part-0', '" + UUID.randomUUID() + "', 5, now() - interval '1 second', 1)");
        NamingGuard changing = guard(JOBS, true);
        changing.check();
        clock.advance(SETTLE);

        changing.check();
        assertThat(changing.refusal()).hasValueSatisfying(why -> assertThat(why).contains("hear they were removed"));
        assertThat(query("SELECT count(*)::text FROM fence_inflight")).isEqualTo("0");

        clock.advance(InstanceFences.EXPIRED_HOLDER_GRACE);
        changing.check();
        assertThat(changing.refusal()).isEmpty();
    }

    /**
     * After the changing instance saw the database's clock step forward, a registration found
     * expired may still cover writes under the old naming: for a row length from then the change
     * waits and removes nothing.
     */
    @Test
    void aChangeRemovesNoExpiredRegistrationForARowLengthAfterTheDatabaseClockSteppedForward() throws SQLException {
        guard(PER_OBJECT, false).check();
        execute("INSERT INTO fence_inflight (resource, instance, min_token, until, generation)"
                + " VALUES ('/data/jobs/42/part-0', '" + UUID.randomUUID() + "', 5, now() - interval '1 second', 1)");
        ExpiryTrust expiry = new ExpiryTrust(ROW_LENGTH, clock::now);
        NamingGuard changing = guard(JOBS, true, false, expiry);
        changing.check();
        expiry.steppedForward();
        clock.advance(SETTLE);

        changing.check();
        assertThat(changing.refusal()).hasValueSatisfying(why -> assertThat(why).contains("clock stepped forward"));
        assertThat(query("SELECT count(*)::text FROM fence_inflight")).as("the row may be live").isEqualTo("1");

        clock.advance(ROW_LENGTH);
        changing.check();
        assertThat(query("SELECT count(*)::text FROM fence_inflight")).isEqualTo("0");
        clock.advance(InstanceFences.EXPIRED_HOLDER_GRACE);
        changing.check();
        assertThat(changing.refusal()).isEmpty();
    }

    /**
     * A renamer that read the record before another change was carried could record its naming over
     * the carried one (the record compared is now the whole row, so it cannot); whatever left such a
     * record, the carry checks the naming last carried under the row's lock and carries nothing.
     */
    @Test
    void aChangeRecordedOverANamingItsFencesCannotBeCarriedFromIsNeverCarried() throws SQLException {
        guard(JOBS, false).check();
        insertFence("/data/jobs/42", 9);
        FenceNaming runs = FenceNaming.of("s3-path", List.of(), "", "/{bucket}/runs/{run}/**");
        execute("UPDATE fence_naming SET naming = '" + runs.text() + "', naming_key = '" + NamingGuard.sessionKey(runs)
                + "', carried = false");

        NamingGuard late = guard(runs, true);
        late.check();
        clock.advance(SETTLE);
        late.check();

        assertThat(late.refusal()).hasValueSatisfying(why -> assertThat(why).contains("cannot be carried from"));
        assertThat(carried()).isFalse();
        assertThat(query("SELECT carried_naming FROM fence_naming")).isEqualTo(JOBS.text());
    }

    /**
     * An instance that admits unsigned tokens beside instances that require signatures would let
     * one write fence every signed holder out for good: whichever setting differs from the one
     * recorded refuses writes, and nothing is recorded over it.
     */
    @Test
    void anInstanceWhoseTokenSigningDiffersFromTheRecordedOneRefusesWritesAndChangesNothing() throws SQLException {
        NamingGuard signed = guard(PER_OBJECT, false, true);
        signed.check();
        assertThat(signed.refusal()).isEmpty();
        assertThat(recordedSigning()).isEqualTo("true");

        NamingGuard unsigned = guard(PER_OBJECT, false, false);
        unsigned.check();
        clock.advance(SETTLE.multipliedBy(2));
        unsigned.check();
        signed.check();

        assertThat(unsigned.refusal()).hasValueSatisfying(why -> assertThat(why)
                .contains("admits unsigned tokens").contains("--token-key-file").contains("--change-fence-naming"));
        assertThat(signed.refusal()).isEmpty();
        assertThat(recordedSigning()).isEqualTo("true");
    }

    /**
     * Signing is no naming: recording another setting renames nothing, so no fence is carried or
     * raised, not even from the rows an earlier naming left under a scope. The instance making the
     * change serves once the instances with the other setting can no longer be admitting.
     */
    @Test
    void aChangeOfTokenSigningAloneRecordsTheSettingAndCarriesNoFence() throws SQLException {
        NamingGuard unsigned = guard(JOBS, false, false);
        unsigned.check();
        insertFence("/data/jobs/42/part-0", 9);

        NamingGuard signing = guard(JOBS, true, true);
        signing.check();
        assertThat(recordedSigning()).isEqualTo("true");
        assertThat(signing.refusal()).hasValueSatisfying(why -> assertThat(why).contains("waiting"));
        unsigned.check();
        assertThat(unsigned.refusal()).hasValueSatisfying(why -> assertThat(why).contains("signed"));

        clock.advance(SETTLE);
        signing.check();
        assertThat(signing.refusal()).isEmpty();
        assertThat(recorded()).isEqualTo(JOBS.text());
        assertThat(carried()).isTrue();
        assertThat(fence("/data/jobs/42")).isEqualTo(-1);
        assertThat(query("SELECT count(*)::text FROM fence")).isEqualTo("1");

        // Two instances allowed to change, with different settings, take the record from each other: neither serves.
        NamingGuard unsigning = guard(JOBS, true, false);
        unsigning.check();
        signing.check();
        clock.advance(SETTLE);
        unsigning.check();
        signing.check();
        assertThat(unsigning.refusal()).isPresent();
        assertThat(signing.refusal()).isPresent();
    }

    /**
     * The database writes a gateway session's registrations only under the signing setting recorded
     * (or none recorded yet): a gateway paused past a change of the setting cannot register, so
     * cannot raise a fence with, a write it judged under the old one.
     */
    @Test
    void aRegistrationIsWrittenOnlyUnderTheTokenSigningRecorded() throws SQLException {
        guard(PER_OBJECT, false, false).check();
        try (FenceDatabase unsigned = FenceDatabase.open(TestPostgres.config(schema), NamingGuard.sessionKey(PER_OBJECT), false);
             FenceDatabase signed = FenceDatabase.open(TestPostgres.config(schema), NamingGuard.sessionKey(PER_OBJECT), true)) {
            registerAs(unsigned, "/data/a");
            assertThatThrownBy(() -> registerAs(signed, "/data/b")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("checks tokens otherwise");

            guard(PER_OBJECT, true, true).check();

            assertThatThrownBy(() -> registerAs(unsigned, "/data/c")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("checks tokens otherwise");
            registerAs(signed, "/data/d");
            recordWithoutSigning();
            registerAs(unsigned, "/data/e");
        }
    }

    /**
     * A record written by a version that did not record signing (the column V13 adds is empty):
     * the first instance of this version to read it records its own setting and serves, as the
     * first instance on a new database records its naming, and one with the other setting is
     * then refused.
     */
    @Test
    void aRecordWithoutTokenSigningTakesTheSettingOfTheFirstInstanceThatReadsIt() throws SQLException {
        guard(PER_OBJECT, false, false).check();
        insertFence("/data/jobs/42/part-0", 9);
        recordWithoutSigning();

        NamingGuard signed = guard(PER_OBJECT, false, true);
        signed.check();
        assertThat(signed.refusal()).isEmpty();
        assertThat(recordedSigning()).isEqualTo("true");
        assertThat(query("SELECT count(*)::text FROM fence")).isEqualTo("1");

        NamingGuard unsigned = guard(PER_OBJECT, false, false);
        unsigned.check();
        assertThat(unsigned.refusal()).hasValueSatisfying(why -> assertThat(why).contains("--token-key-file"));
    }

    /**
     * With the record gone, the next instance to check would record its own naming and signing
     * unchecked, and one started without the scopes or the token key would then serve; so the
     * database refuses to lose either, also in a session that skips ordinary triggers.
     */
    @Test
    void theNamingRecordIsNeverDeletedTruncatedOrItsSigningUnsetAlsoInReplicaSessions() throws SQLException {
        guard(JOBS, false, true).check();
        String recorded = query("SELECT naming || ' ' || tokens_signed FROM fence_naming");

        for (String session : List.of("SET session_replication_role = origin", "SET session_replication_role = replica")) {
            assertThatThrownBy(() -> execute(session + "; DELETE FROM fence_naming")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("fence_naming is never deleted or truncated");
            assertThatThrownBy(() -> execute(session + "; TRUNCATE fence_naming")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("fence_naming is never deleted or truncated");
            assertThatThrownBy(() -> execute(session + "; UPDATE fence_naming SET tokens_signed = NULL"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("never unset");
        }
        assertThat(query("SELECT naming || ' ' || tokens_signed FROM fence_naming")).isEqualTo(recorded);

        NamingGuard otherwise = guard(PER_OBJECT, false, false);
        otherwise.check();
        assertThat(otherwise.refusal()).as("an instance without the scopes or the key").isPresent();
    }

    @Test
    void anInstanceWhoseSessionsDoNotCarryItsNamingRefusesWrites() throws SQLException {
        NamingGuard unkeyed = new NamingGuard(database.dataSource(), PER_OBJECT, false, false, UUID.randomUUID(), ADMISSION_BOUND,
                clock::now);
        unkeyed.check();

        assertThat(unkeyed.refusal()).hasValueSatisfying(why -> assertThat(why).contains("connection pooler"));
    }

    @Test
    void aChangeThatWouldUncoverObjectsOfAScopeIsRefusedAndChangesNothing() throws SQLException {
        guard(JOBS, false).check();
        insertFence("/data/jobs/42", 7);

        NamingGuard dropping = guard(PER_OBJECT, true);
        dropping.check();
        clock.advance(SETTLE.multipliedBy(2));
        dropping.check();

        assertThat(dropping.refusal()).hasValueSatisfying(why -> assertThat(why).contains("cannot be changed"));
        assertThat(recorded()).isEqualTo(JOBS.text());
        assertThat(carried()).isTrue();
    }

    private static void registerAs(FenceDatabase session, String resource) throws SQLException {
        try (Connection connection = session.dataSource().getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO fence_inflight"
                     + " (resource, instance, min_token, until, generation) VALUES (?, ?, 5, now() + interval '1 minute', 1)")) {
            insert.setString(1, resource);
            insert.setObject(2, UUID.randomUUID());
            insert.executeUpdate();
        }
    }

    private void insertFence(String resource, long token) throws SQLException {
        insertFence(resource, token, null);
    }

    private void insertFence(String resource, long token, String holder) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO fence (resource, token, holder) VALUES (?, ?, ?)")) {
            insert.setString(1, resource);
            insert.setLong(2, token);
            insert.setString(3, holder);
            insert.executeUpdate();
        }
    }

    /** "token holder" of a fence row ("null" for no holder), or null when there is no row. */
    private String fenceWithHolder(String resource) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT token || ' ' || coalesce(holder, 'null') FROM fence"
                     + " WHERE resource = ?")) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        }
    }

    private long fence(String resource) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT token FROM fence WHERE resource = ?")) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : -1;
            }
        }
    }

    private String recorded() throws SQLException {
        return query("SELECT naming FROM fence_naming");
    }

    private String recordedSigning() throws SQLException {
        return query("SELECT tokens_signed::text FROM fence_naming");
    }

    private boolean carried() throws SQLException {
        return Boolean.parseBoolean(query("SELECT carried::text FROM fence_naming"));
    }

    private String query(String sql) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getString(1);
        }
    }

    /** The record as a version before token signing was recorded left it: no setting. */
    private void recordWithoutSigning() throws SQLException {
        execute("ALTER TABLE fence_naming DISABLE TRIGGER fence_naming_never_unset;"
                + " UPDATE fence_naming SET tokens_signed = NULL;"
                + " ALTER TABLE fence_naming ENABLE ALWAYS TRIGGER fence_naming_never_unset");
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
