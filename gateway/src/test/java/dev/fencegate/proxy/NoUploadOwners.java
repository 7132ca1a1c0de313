package dev.fencegate.proxy;

import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.UploadOwners;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Upload owners for handler tests that send no multipart requests: any use fails, as an unreachable store would. */
final class NoUploadOwners implements UploadOwners {

    static final UploadOwners INSTANCE = new NoUploadOwners();

    private NoUploadOwners() {
    }

    @Override
    public CompletableFuture<Void> record(String uploadId, ResourceKey object) {
        return CompletableFuture.failedFuture(new IllegalStateException("no upload owners here"));
    }

    @Override
    public CompletableFuture<Optional<ResourceKey>> ownerOf(String uploadId) {
        return CompletableFuture.failedFuture(new IllegalStateException("no upload owners here"));
    }
}
