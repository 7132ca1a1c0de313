package dev.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.TestPostgres;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Upload ids and their objects in a real PostgreSQL, seen alike by every instance. */
class PostgresUploadOwnersTest {

    private static FenceDatabase database;
    private static PostgresUploadOwners owners;
    private static PostgresUploadOwners otherInstance;

    @BeforeAll
    static void openDatabase() {
        database = TestPostgres.migrated(PostgresUploadOwnersTest.class.getSimpleName());
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
}
