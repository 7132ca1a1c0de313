package dev.fencegate.store;

import dev.fencegate.config.Durations;
import dev.fencegate.config.OperationsConfig;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.UploadOwners;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upload owners as rows of {@code multipart_upload}, shared by every instance. Statements run on
 * a small bounded pool of their own, never on an event loop; a full queue or a database error
 * fails the future, and the request is refused (fail closed). Multipart steps are rare next to
 * plain writes, so two threads are plenty. An upload is known for its lifetime after its creation,
 * by PostgreSQL's clock; after that its steps are refused as unknown, and a thread of its own
 * deletes the expired records, oldest first, a bounded number per statement.
 */
public final class PostgresUploadOwners implements UploadOwners, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PostgresUploadOwners.class);
    /**
     * Binds the upload id, its object and the lifetime in seconds. An expired record of the id is
     * taken over: the store hands an id out again only once the upload it named is gone.
     */
    private static final String RECORD = """
            INSERT INTO multipart_upload AS u (upload_id, resource) VALUES (?, ?)
            ON CONFLICT (upload_id) DO UPDATE SET resource = EXCLUDED.resource, created_at = now()
                WHERE u.created_at <= now() - make_interval(secs => ?)""";
    private static final String OWNER = "SELECT resource FROM multipart_upload WHERE upload_id = ?";
    /** Binds the upload id and the lifetime in seconds. */
    private static final String LIVE_OWNER = OWNER + " AND created_at > now() - make_interval(secs => ?)";
    private static final int FORGET_BATCH = 1_000;
    /** Binds the lifetime in seconds; rows another instance is deleting are skipped, not waited for. */
    private static final String FORGET = """
            DELETE FROM multipart_upload WHERE upload_id IN (
                SELECT upload_id FROM multipart_upload WHERE created_at <= now() - make_interval(secs => ?)
                ORDER BY created_at LIMIT %d FOR UPDATE SKIP LOCKED)""".formatted(FORGET_BATCH);
    /** Statements a pass makes at most, so one pass ends even while uploads expire faster than it deletes. */
    private static final int FORGET_STATEMENTS = 100;
    private static final Duration FORGET_INTERVAL = Duration.ofMinutes(10);
    private static final int THREADS = 2;
    private static final int QUEUE = 512;

    private final DataSource dataSource;
    private final Duration lifetime;
    /** The lifetime as the statements bind it. */
    private final double lifetimeSeconds;
    private final Duration forgetEvery;
    private final ThreadPoolExecutor executor;
    private final ScheduledExecutorService forgetter;
    private final LongAdder forgotten = new LongAdder();

    /** Uploads known for the default lifetime. */
    public PostgresUploadOwners(DataSource dataSource) {
        this(dataSource, OperationsConfig.DEFAULT_MULTIPART_UPLOAD_LIFETIME);
    }

    /** Expired records are deleted every ten minutes. */
    public PostgresUploadOwners(DataSource dataSource, Duration lifetime) {
        this(dataSource, lifetime, FORGET_INTERVAL);
    }

    PostgresUploadOwners(DataSource dataSource, Duration lifetime, Duration forgetEvery) {
        this.dataSource = dataSource;
        this.lifetime = lifetime;
        this.lifetimeSeconds = lifetime.toMillis() / 1e3;
        this.forgetEvery = forgetEvery;
        this.executor = new ThreadPoolExecutor(THREADS, THREADS, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE),
                runnable -> {
                    Thread thread = new Thread(runnable, "fence-upload-owners");
                    thread.setDaemon(true);
                    return thread;
                });
        this.forgetter = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fence-upload-forget");
            thread.setDaemon(true);
            return thread;
        });
        forgetter.scheduleWithFixedDelay(this::forgetExpiredLogged, forgetEvery.toMillis(), forgetEvery.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletableFuture<Void> record(String uploadId, ResourceKey object) {
        return run(() -> {
            try (Connection connection = dataSource.getConnection()) {
                try (PreparedStatement insert = connection.prepareStatement(RECORD)) {
                    insert.setString(1, uploadId);
                    insert.setString(2, object.value());
                    insert.setDouble(3, lifetimeSeconds);
                    if (insert.executeUpdate() == 1) {
                        return null;
                    }
                }
                // The id was known already: harmless only if it was this object's.
                Optional<ResourceKey> owner = owner(connection, uploadId, false);
                if (owner.isPresent() && owner.get().equals(object)) {
                    return null;
                }
                throw new FenceStoreUnavailableException("upload id " + uploadId + " for " + object
                        + " was already recorded for " + owner.map(ResourceKey::value).orElse("another object"));
            } catch (SQLException e) {
                throw new FenceStoreUnavailableException("upload id " + uploadId + " for " + object
                        + " could not be recorded: " + e.getMessage(), e);
            }
        });
    }

    @Override
    public CompletableFuture<Optional<ResourceKey>> ownerOf(String uploadId) {
        return run(() -> {
            try (Connection connection = dataSource.getConnection()) {
                return owner(connection, uploadId, true);
            } catch (SQLException e) {
                throw new FenceStoreUnavailableException("owner of upload id " + uploadId + " could not be read: "
                        + e.getMessage(), e);
            }
        });
    }

    /** The object the id was recorded for; with {@code liveOnly}, only while the record is within its lifetime. */
    private Optional<ResourceKey> owner(Connection connection, String uploadId, boolean liveOnly) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(liveOnly ? LIVE_OWNER : OWNER)) {
            select.setString(1, uploadId);
            if (liveOnly) {
                select.setDouble(2, lifetimeSeconds);
            }
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? Optional.of(new ResourceKey(row.getString(1))) : Optional.empty();
            }
        }
    }

    /**
     * Deletes the records of uploads older than the lifetime, oldest first, in statements of at
     * most a thousand; returns how many went.
     */
    public long forgetExpired() throws SQLException {
        long deleted = 0;
        try (Connection connection = dataSource.getConnection();
             PreparedStatement forget = connection.prepareStatement(FORGET)) {
            forget.setDouble(1, lifetimeSeconds);
            for (int i = 0; i < FORGET_STATEMENTS; i++) {
                int gone = forget.executeUpdate();
                deleted += gone;
                forgotten.add(gone);
                if (gone < FORGET_BATCH) {
                    break;
                }
            }
        }
        return deleted;
    }

    private void forgetExpiredLogged() {
        try {
            long deleted = forgetExpired();
            if (deleted > 0) {
                log.info("Forgot {} multipart upload(s) created more than {} ago", deleted, Durations.format(lifetime));
            }
        } catch (SQLException | RuntimeException e) {
            log.warn("Expired multipart upload records could not be deleted; trying again in {}: {}",
                    Durations.format(forgetEvery), e.toString());
        }
    }

    /** Records of expired uploads this instance deleted. */
    public long forgotten() {
        return forgotten.sum();
    }

    private <T> CompletableFuture<T> run(Supplier<T> statement) {
        try {
            return CompletableFuture.supplyAsync(statement, executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new FenceStoreUnavailableException(
                    "upload owner queue full (" + QUEUE + " waiting)", e));
        }
    }

    @Override
    public void close() {
        forgetter.shutdownNow();
        executor.shutdownNow();
    }
}
