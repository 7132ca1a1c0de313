package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.FenceSchema;
import dev.fencegate.testing.TestPostgres;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Upload ids and their objects in a real PostgreSQL, seen alike by every instance. */
class PostgresUploadOwnersTest {

    private static FenceDatabase database;
    private static FenceSchema tables;
    private static PostgresUploadOwners owners;
    private static PostgresUploadOwners otherInstance;

    @BeforeAll
    static void openDatabase() {
        String schema = TestPostgres.newSchema(PostgresUploadOwnersTest.class.getSimpleName());
        database = FenceDatabase.open(TestPostgres.config(schema));
        database.migrate();
        tables = new FenceSchema(schema);
        owners = new PostgresUploadOwners(database.dataSource());
        otherInstance = new PostgresUploadOwners(database.dataSource());
    }

    @AfterAll
    static void closeDatabase() {
        owners.close();
        otherInstance.close();
        database.close();
    }

    @Test
    void aRecordedIdBelongsToItsObjectForEveryInstance() throws Exception {
        String id = UUID.randomUUID().toString();
        ResourceKey object = new ResourceKey("/b/" + id);
        assertThat(otherInstance.ownerOf(id).get(5, TimeUnit.SECONDS)).isEmpty();

        owners.record(id, object).get(5, TimeUnit.SECONDS);

        assertThat(otherInstance.ownerOf(id).get(5, TimeUnit.SECONDS)).hasValue(object);
        otherInstance.record(id, object).get(5, TimeUnit.SECONDS);
    }

    @Test
    void anIdAlreadyRecordedForAnotherObjectIsNotTakenOver() throws Exception {
        String id = UUID.randomUUID().toString();
        owners.record(id, new ResourceKey("/b/first")).get(5, TimeUnit.SECONDS);

        assertThatThrownBy(() -> otherInstance.record(id, new ResourceKey("/b/second")).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(FenceStoreUnavailableException.class);
        assertThat(owners.ownerOf(id).get(5, TimeUnit.SECONDS)).hasValue(new ResourceKey("/b/first"));
    }

    private static void age(String uploadId, Duration age) {
        assertThat(tables.ageUpload(uploadId, age)).isEqualTo(1);
    }

    @Test
    void anUploadOlderThanTheLifetimeIsUnknownAndItsRecordDeleted() throws Exception {
        String old = UUID.randomUUID().toString();
        String young = UUID.randomUUID().toString();
        owners.record(old, new ResourceKey("/b/old")).get(5, TimeUnit.SECONDS);
        owners.record(young, new ResourceKey("/b/young")).get(5, TimeUnit.SECONDS);
        age(old, Duration.ofDays(7).plusMinutes(1));
        age(young, Duration.ofDays(7).minusMinutes(1));

        assertThat(otherInstance.ownerOf(old).get(5, TimeUnit.SECONDS)).as("unknown before its record is deleted").isEmpty();
        assertThat(otherInstance.ownerOf(young).get(5, TimeUnit.SECONDS)).hasValue(new ResourceKey("/b/young"));
        long before = otherInstance.forgotten();

        assertThat(otherInstance.forgetExpired()).isEqualTo(1);

        assertThat(tables.uploadRecorded(old)).isFalse();
        assertThat(tables.uploadRecorded(young)).isTrue();
        assertThat(otherInstance.forgotten() - before).isEqualTo(1);
        assertThat(otherInstance.forgetExpired()).isZero();
    }

    @Test
    void anExpiredIdHandedOutAgainBelongsToItsNewObject() throws Exception {
        String id = UUID.randomUUID().toString();
        owners.record(id, new ResourceKey("/b/gone")).get(5, TimeUnit.SECONDS);
        age(id, Duration.ofDays(8));

        otherInstance.record(id, new ResourceKey("/b/new")).get(5, TimeUnit.SECONDS);

        assertThat(owners.ownerOf(id).get(5, TimeUnit.SECONDS)).hasValue(new ResourceKey("/b/new"));
        assertThatThrownBy(() -> owners.record(id, new ResourceKey("/b/gone")).get(5, TimeUnit.SECONDS))
                .as("a live record is not taken over")
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(FenceStoreUnavailableException.class);
    }

    @Test
    void expiredRecordsAreDeletedInTheBackground() throws Exception {
        try (PostgresUploadOwners shortLived = new PostgresUploadOwners(database.dataSource(), Duration.ofHours(1),
                Duration.ofMillis(100))) {
            String id = UUID.randomUUID().toString();
            shortLived.record(id, new ResourceKey("/b/" + id)).get(5, TimeUnit.SECONDS);
            age(id, Duration.ofHours(2));

            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !tables.uploadRecorded(id));
            assertThat(shortLived.forgotten()).isPositive();
        }
    }
}
