package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.FenceAdmission;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.InstanceFences;
import dev.fencegate.fence.LeaseTiming;
import dev.fencegate.fence.RememberedFences;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.Proxies;
import dev.fencegate.testing.TestPostgres;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A batch of fence checks registers its claims and raises their fences in one commit. What that
 * commit must never allow: a claim admitted on a fence read before its registration was visible
 * to every other instance, or any claim of the batch admitted when the commit failed.
 */
class BatchCommitTest {

    private static final LeaseTiming TIMING = new LeaseTiming(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(10));

    private static FenceDatabase database;

    @BeforeAll
    static void openDatabase() throws SQLException {
        database = TestPostgres.migrated(BatchCommitTest.class.getSimpleName());
        try (Connection connection = database.dataSource().getConnection(); Statement statement = connection.createStatement()) {
            // Fails the commit, not the statement: the registration and raise are written, then lost.
            statement.execute("""
                    CREATE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF NEW.resource LIKE '/refused/%' THEN RAISE EXCEPTION 'commit refused by the test'; END IF;
                        RETURN NULL;
                    END $$""");
            statement.execute("CREATE CONSTRAINT TRIGGER refuse_commit AFTER INSERT OR UPDATE ON fence_inflight "
                    + "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_commit()");
        }
    }

    @AfterAll
    static void closeDatabase() {
        if (database != null) {
            database.close();
        }
    }

    @Test
    void aBatchWhoseCommitFailsAdmitsNoneOfItsClaims() throws SQLException {
        UUID id = UUID.randomUUID();
        FenceAdmission admission = admission(database.dataSource(), id);
        String batch = "/" + UUID.randomUUID();
        ResourceKey earlier = new ResourceKey("/ok" + batch + "/earlier");
        FenceClaim atFence = claim(earlier, 4);
        assertThat(admission.attempt(atFence)).isInstanceOf(FenceDecision.Admitted.class);
        List<FenceClaim> claims = List.of(atFence, claim(new ResourceKey("/ok" + batch + "/new"), 3),
                claim(new ResourceKey("/refused" + batch + "/new"), 5), claim(earlier, 6));

        List<FenceDecision> decisions = admission.attemptAll(claims);

        assertThat(decisions).extracting(FenceDecision::kind).containsOnly(FenceDecision.Kind.UNAVAILABLE);
        assertThat(new PostgresFenceStore(database.dataSource()).read(earlier).map(f -> f.token().value())).contains(4L);
        assertThat(registeredResources(id)).containsExactly(earlier.value());
    }

    @Test
    void aClaimRegisteredInTheBatchIsJudgedOnlyOnceItsRegistrationIsVisibleToOtherInstances() throws SQLException {
        UUID id = UUID.randomUUID();
        List<Set<String>> seenByOthersAtEachJudge = new ArrayList<>();
        DataSource watched = judgesWatched(database.dataSource(), () -> seenByOthersAtEachJudge.add(registeredResources(id)));
        String batch = "/ok/" + UUID.randomUUID();
        ResourceKey existing = new ResourceKey(batch + "/existing");
        ResourceKey raised = new ResourceKey(batch + "/raised");
        new PostgresFenceStore(database.dataSource()).admit(claim(existing, 7));
        new PostgresFenceStore(database.dataSource()).admit(claim(raised, 3));
        FenceAdmission admission = admission(watched, id);

        // A claim at its fence raises nothing: its statement commits only the registration.
        assertThat(admission.attempt(claim(existing, 7))).isInstanceOf(FenceDecision.Admitted.class);
        assertThat(seenByOthersAtEachJudge).isNotEmpty().allSatisfy(seen -> assertThat(seen).contains(existing.value()));

        seenByOthersAtEachJudge.clear();
        List<FenceDecision> decisions = admission.attemptAll(List.of(
                claim(existing, 7), claim(new ResourceKey(batch + "/new"), 2), claim(raised, 9)));

        assertThat(decisions).extracting(FenceDecision::kind).containsExactly(
                FenceDecision.Kind.ADMITTED, FenceDecision.Kind.ADMITTED, FenceDecision.Kind.ADMITTED);
        assertThat(seenByOthersAtEachJudge).isNotEmpty().allSatisfy(seen ->
                assertThat(seen).contains(existing.value(), batch + "/new", raised.value()));
    }

    /**
     * The batch's statement commits, and its answer is lost with the connection: the claims get
     * 503, and the rows it wrote, whose generation this instance never learnt, would hold back
     * every raise of their resources elsewhere until they expired. The next sweep writes them
     * again, learning them, and the one after withdraws them.
     */
    @Test
    void aBatchCutOffAsItCommitsLeavesNoRegistrationOnceTheSweepsRun() throws SQLException {
        UUID id = UUID.randomUUID();
        AtomicLong clock = new AtomicLong(System.nanoTime());
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), id), TIMING, clock::get);
        FenceAdmission admission = new FenceAdmission(new PostgresFenceStore(cutOffAfterTheBatchCommits(database.dataSource()), id),
                fences, new RememberedFences(100), claim -> { });
        String batch = "/ok/" + UUID.randomUUID();
        List<FenceClaim> claims = List.of(claim(new ResourceKey(batch + "/a"), 5), claim(new ResourceKey(batch + "/b"), 6));

        assertThat(admission.attemptAll(claims)).extracting(FenceDecision::kind).containsOnly(FenceDecision.Kind.UNAVAILABLE);
        assertThat(registeredResources(id)).as("the lost batch committed its rows").contains(batch + "/a", batch + "/b");

        fences.reconcile();
        clock.addAndGet(Duration.ofSeconds(2).toNanos());
        fences.reconcile();

        assertThat(registeredResources(id)).doesNotContain(batch + "/a", batch + "/b");
    }

    /**
     * A batch the database refused and rolled back (a lock timeout) left no rows: nothing is in
     * doubt, and the sweep writes no row for it that raises elsewhere would wait on.
     */
    @Test
    void aBatchTheDatabaseRolledBackLeavesNoRowToWriteAgain() throws SQLException {
        UUID id = UUID.randomUUID();
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), id), TIMING,
                System::nanoTime);
        FenceAdmission admission = new FenceAdmission(new PostgresFenceStore(batchFails(database.dataSource(), false,
                new SQLException("canceling statement due to lock timeout", "55P03")), id), fences, new RememberedFences(100),
                claim -> { });
        String resource = "/ok/" + UUID.randomUUID() + "/a";

        assertThat(admission.attempt(claim(new ResourceKey(resource), 5)).kind()).isEqualTo(FenceDecision.Kind.UNAVAILABLE);
        fences.reconcile();

        assertThat(registeredResources(id)).doesNotContain(resource);
    }

    /**
     * A claim that creates its resource's fence row is admitted by the statement that commits the
     * row, with no read after it: another instance with a write there in flight registered, then
     * read, so it could not have missed the row. With another instance's row in sight it is still
     * judged after the commit, and waits for that instance.
     */
    @Test
    void aClaimThatCreatesItsFenceIsAdmittedWithoutAReadAfterTheCommitUnlessAnotherInstanceIsRegistered() throws SQLException {
        UUID id = UUID.randomUUID();
        List<Set<String>> judges = new ArrayList<>();
        FenceAdmission admission = admission(judgesWatched(database.dataSource(), () -> judges.add(Set.of())), id);
        String batch = "/ok/" + UUID.randomUUID();
        ResourceKey contended = new ResourceKey(batch + "/contended");
        try (Connection other = database.dataSource().getConnection();
             PreparedStatement row = other.prepareStatement("INSERT INTO fence_inflight (resource, instance, min_token, until, generation) "
                     + "VALUES (?, ?, 1, now() + interval '1 minute', 1)")) {
            row.setString(1, contended.value());
            row.setObject(2, UUID.randomUUID());
            row.executeUpdate();
        }

        List<FenceDecision> created = admission.attemptAll(List.of(claim(new ResourceKey(batch + "/a"), 2),
                claim(new ResourceKey(batch + "/b"), 3)));

        assertThat(created).extracting(FenceDecision::kind).containsOnly(FenceDecision.Kind.ADMITTED);
        assertThat(judges).isEmpty();
        assertThat(registeredResources(id)).contains(batch + "/a", batch + "/b");

        assertThat(admission.attempt(claim(contended, 2))).isInstanceOf(FenceDecision.Draining.class);
        assertThat(judges).hasSize(1);
    }

    /**
     * Two instances create one fence at once with different tokens, round after round, neither
     * finishing its write: the lower token's write may still land, so the higher is never
     * admitted beside it. Whoever inserts the row, the other's raise finds it.
     */
    @Test
    void twoInstancesCreatingOneFenceAtOnceNeverBothAdmitDifferentTokens() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 60; round++) {
                ResourceKey resource = new ResourceKey("/ok/race/" + UUID.randomUUID());
                FenceAdmission lower = admission(database.dataSource(), UUID.randomUUID());
                FenceAdmission higher = admission(database.dataSource(), UUID.randomUUID());
                CyclicBarrier start = new CyclicBarrier(2);
                Future<FenceDecision> low = threads.submit(() -> {
                    start.await();
                    return lower.attempt(claim(resource, 1));
                });
                Future<FenceDecision> high = threads.submit(() -> {
                    start.await();
                    return higher.attempt(claim(resource, 2));
                });
                FenceDecision.Kind lowKind = low.get(30, TimeUnit.SECONDS).kind();
                FenceDecision.Kind highKind = high.get(30, TimeUnit.SECONDS).kind();
                assertThat(List.of(lowKind, highKind)).as("round %d: token 1, token 2", round)
                        .isNotEqualTo(List.of(FenceDecision.Kind.ADMITTED, FenceDecision.Kind.ADMITTED))
                        .doesNotContain(FenceDecision.Kind.UNAVAILABLE);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static FenceClaim claim(ResourceKey resource, long token) {
        return new FenceClaim(resource, new FencingToken(token), Optional.empty());
    }

    private static FenceAdmission admission(DataSource dataSource, UUID id) {
        InstanceFences fences = new InstanceFences(new PostgresInflightRegistrations(database.dataSource(), id), TIMING,
                System::nanoTime);
        return new FenceAdmission(new PostgresFenceStore(dataSource, id), fences, new RememberedFences(100), claim -> { });
    }

    /** This instance's rows as another instance sees them: through a connection of its own. */
    private static Set<String> registeredResources(UUID id) {
        try (Connection other = database.dataSource().getConnection();
             PreparedStatement select = other.prepareStatement("SELECT resource FROM fence_inflight WHERE instance = ?")) {
            select.setObject(1, id);
            Set<String> resources = new HashSet<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    resources.add(rows.getString(1));
                }
            }
            return resources;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs the batch's statement, then loses its answer as a cut connection would. */
    private static DataSource cutOffAfterTheBatchCommits(DataSource dataSource) {
        return batchFails(dataSource, true, new SQLException("An I/O error occurred while sending to the backend.", "08006"));
    }

    /** The batch's statement fails with {@code failure}, after it ran ({@code ran}) or instead of running. */
    private static DataSource batchFails(DataSource dataSource, boolean ran, SQLException failure) {
        return Proxies.connectionsThrough(dataSource, (connection, m, a) -> {
            Object made = Proxies.invoke(m, connection, a);
            if (!m.getName().equals("prepareStatement") || !((String) a[0]).contains("INSERT INTO fence_inflight")) {
                return made;
            }
            PreparedStatement statement = (PreparedStatement) made;
            return Proxy.newProxyInstance(BatchCommitTest.class.getClassLoader(), new Class<?>[] {PreparedStatement.class},
                    (s, sm, sa) -> {
                        if (!sm.getName().equals("executeQuery")) {
                            return Proxies.invoke(sm, statement, sa);
                        }
                        if (ran) {
                            ((ResultSet) Proxies.invoke(sm, statement, sa)).close();
                        }
                        throw failure;
                    });
        });
    }

    /** Runs {@code beforeJudge} each time a judging read (and nothing else) is prepared. */
    private static DataSource judgesWatched(DataSource dataSource, Runnable beforeJudge) {
        return Proxies.connectionsThrough(dataSource, (connection, m, a) -> {
            if (m.getName().equals("prepareStatement") && ((String) a[0]).contains("FROM fence_inflight i")
                    && !((String) a[0]).contains("INSERT")) {
                beforeJudge.run();
            }
            return Proxies.invoke(m, connection, a);
        });
    }
}
