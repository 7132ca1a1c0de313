package dev.fencegate.http;

import java.util.Optional;

/**
 * The kinds whose store is S3 ({@code s3-path}, {@code s3-virtual-host}): what they share beyond
 * naming objects.
 */
public sealed interface S3StoreIdentity extends StoreIdentity permits S3PathIdentity, S3VirtualHostIdentity {

    /**
     * S3 reads no {@code Depth}; a WebDAV store behind an S3 kind set by mistake refuses, at
     * {@code Depth: 0}, to delete a collection (nginx, Apache mod_dav), each object under it fenced
     * on its own.
     */
    @Override
    default Optional<String> deleteDepth() {
        return Optional.of("0");
    }

    /** Not asked first: an S3 store would refuse a PROPFIND signed for a DELETE. */
    @Override
    default boolean asksWhetherADeleteNamesACollection() {
        return false;
    }
}
