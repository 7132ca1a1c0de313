package dev.fencegate.fence;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Which object each multipart upload id was created for. A store that finds an upload by its id
 * alone would otherwise let a write fenced on one object touch another object's upload. Both
 * calls complete off the event loops; a failed future means the owner could not be recorded or
 * read, and the request must be refused.
 */
public interface UploadOwners {

    /** Records durably that {@code uploadId} belongs to {@code object}; fails if it belongs to another. */
    CompletableFuture<Void> record(String uploadId, ResourceKey object);

    /** The object {@code uploadId} was created for; empty when the gateway never saw it created. */
    CompletableFuture<Optional<ResourceKey>> ownerOf(String uploadId);
}
