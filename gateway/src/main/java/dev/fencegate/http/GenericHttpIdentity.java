package dev.fencegate.http;

import java.util.Optional;

/**
 * A store of unknown kind, reached over plain HTTP ({@code --store-kind http}): the object is the
 * canonical path. The Host header is left out of the key, so every Host the store may serve one
 * namespace under meets one fence (a store serving several namespaces by Host gets fewer fences
 * than objects, never more). Writes on collection paths are refused, since what the store does
 * with them is unknown.
 *
 * The store may be S3 after all: names S3 stores keep for themselves are refused as under the S3
 * kinds, where the store reads them, behind the path {@code --upstream} adds.
 *
 * @param upstreamPath        the path {@code --upstream} adds in front of every target, empty for none
 * @param allowTemporaryNames {@code --allow-temporary-names}: a key ending in '-' and a UUID, or in '.' and ten
 *                            digits, is an object of its own
 */
public record GenericHttpIdentity(String upstreamPath, boolean allowTemporaryNames) implements StoreIdentity {

    /** A store reached at the root of its host, with S3Proxy's temporary names refused. */
    public GenericHttpIdentity() {
        this("", false);
    }

    @Override
    public Identified identify(String method, String target, String host, String destination) {
        if (S3Requests.isDeleteObjects(method, target) && !upstreamPath.isEmpty()) {
            // The keys are in the bucket the client's path starts with; the store, if it is S3, reads
            // its bucket from the path the gateway sends, which starts with the upstream path instead.
            return ObjectPaths.refused(Outcome.UNFENCEABLE_WRITE, "a DeleteObjects request (POST ?delete) names its keys"
                    + " in the bucket its path starts with, and the store gets the path behind '" + upstreamPath
                    + "', which an S3 store reads as another bucket; delete each object with a DELETE of its own");
        }
        if (S3Requests.isDeleteObjects(method, target)) {
            // The store may be S3 after all: its keys are fenced. It may as well take the POST for a
            // write of its path, so that path is fenced too (see deleteObjectsWritesItsPath).
            return ObjectPaths.deleteObjects(object(ObjectPaths.canonical(target)));
        }
        return object(ObjectPaths.canonical(target));
    }

    @Override
    public Identified keyInBucket(String bucketPath, String key) {
        return object(ObjectPaths.keyPath(bucketPath, key));
    }

    private Identified object(Identified path) {
        return ObjectPaths.refuseS3FileStoreNames(ObjectPaths.fileObject(path, kind(), allowTemporaryNames), upstreamPath,
                allowTemporaryNames);
    }

    /** A store of unknown kind may take {@code POST /x?delete} for a write of {@code /x}, as it takes any other POST. */
    @Override
    public boolean deleteObjectsWritesItsPath() {
        return true;
    }

    /** The store may be a WebDAV server reached as plain HTTP; a store that knows no Depth ignores it. */
    @Override
    public Optional<String> deleteDepth() {
        return Optional.of("0");
    }

    /** The Host is not part of the resource: the store gets the one {@code --upstream} names. */
    @Override
    public boolean storeGetsTheClientsHost() {
        return false;
    }

    @Override
    public String kind() {
        return "http";
    }
}
