package dev.fencegate.store;

import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.UploadOwners;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Upload owners as rows of {@code multipart_upload}, shared by every instance. Statements run on
 * a small bounded pool of their own, never on an event loop; a full queue or a database error
 * fails the future, and the request is refused (fail closed). Multipart steps are rare next to
 * plain writes, so two threads are plenty.
 */
public final class PostgresUploadOwners implements UploadOwners, AutoCloseable {

    private static final String RECORD = "INSERT INTO multipart_upload (upload_id, resource) VALUES (?, ?) ON CONFLICT (upload_id) DO NOTHING";
    private static final String OWNER = "SELECT resource FROM multipart_upload WHERE upload_id = ?";
    private static final int THREADS = 2;
    private static final int QUEUE = 512;

    private final DataSource dataSource;
    private final ThreadPoolExecutor executor;

    public PostgresUploadOwners(DataSource dataSource) {
        this.dataSource = dataSource;
        this.executor = new ThreadPoolExecutor(THREADS, THREADS, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE),
                runnable -> {
                    Thread thread = new Thread(runnable, "fence-upload-owners");
                    thread.setDaemon(true);
                    return thread;
                });
    }

    @Override
    public CompletableFuture<Void> record(String uploadId, ResourceKey object) {
        return run(() -> {
            try (Connection connection = dataSource.getConnection()) {
                try (PreparedStatement insert = connection.prepareStatement(RECORD)) {
                    insert.setString(1, uploadId);
                    insert.setString(2, object.value());
                    if (insert.executeUpdate() == 1) {
                        return null;
                    }
                }
                // The id was known already: harmless only if it was this object's.
                Optional<ResourceKey> owner = owner(connection, uploadId);
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
                return owner(connection, uploadId);
            } catch (SQLException e) {
                throw new FenceStoreUnavailableException("owner of upload id " + uploadId + " could not be read: "
                        + e.getMessage(), e);
            }
        });
    }

    private static Optional<ResourceKey> owner(Connection connection, String uploadId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(OWNER)) {
            select.setString(1, uploadId);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? Optional.of(new ResourceKey(row.getString(1))) : Optional.empty();
            }
        }
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
        executor.shutdownNow();
    }
}
