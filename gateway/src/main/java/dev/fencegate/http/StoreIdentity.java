package dev.fencegate.http;

import java.util.Optional;
import dev.fencegate.fence.ResourceKey;

/**
 * How one kind of store names the object a write changes. From the method, the request target,
 * the Host header and the Destination header, either the resource the fence is checked under
 * (the object the store will touch, whatever spelling or addressing the client chose) or why the
 * gateway cannot know it. One implementation per store kind, chosen by {@code --store-kind}.
 */
public sealed interface StoreIdentity permits GenericHttpIdentity, WebDavIdentity, S3StoreIdentity {

    /** What a write names. */
    sealed interface Identified {

        /** One object, fenced under its canonical key. */
        record Resource(ResourceKey key) implements Identified {
        }

        /** A DeleteObjects request: its keys are in the body, each in the bucket at {@code bucketPath}. */
        record KeysInBody(String bucketPath) implements Identified {
        }

        record Refused(Problem problem) implements Identified {
        }
    }

    /**
     * The {@code Depth} a forwarded DELETE carries, replacing the client's, or empty to leave it:
     * {@code 0} where a path without a trailing '/' may still name a collection, so a store that
     * serves one there (Apache mod_dav without DirectorySlash) refuses to delete the objects under
     * it, each fenced on its own, instead of deleting them under the one fence checked.
     */
    default Optional<String> deleteDepth() {
        return Optional.empty();
    }

    /**
     * Whether a DELETE's path is first asked of the store (PROPFIND, {@code Depth: 0}), for a
     * WebDAV store that ignores the {@link #deleteDepth} set and would delete a collection whole.
     */
    default boolean asksWhetherADeleteNamesACollection() {
        return deleteDepth().isPresent();
    }

    /**
     * Whether a DeleteObjects request also writes the object its own path names, so that path is
     * fenced beside the keys in the body: where the store may not be S3 and take the POST for a
     * write of its path.
     */
    default boolean deleteObjectsWritesItsPath() {
        return false;
    }

    /**
     * Whether the store gets the client's {@code Host}: S3 clients sign it, and under virtual
     * hosting it names the bucket, which the resource then includes. Otherwise the gateway sends
     * the {@code --upstream} host instead, since the resource leaves the Host out: a store serving
     * several namespaces by Host (one of them inside another's folder, say) is then written only
     * through the one the gateway's fences are for.
     */
    default boolean storeGetsTheClientsHost() {
        return true;
    }

    /** @param host the Host header, null if absent; @param destination the Destination header, null if absent */
    Identified identify(String method, String target, String host, String destination);

    /** The resource of a key a DeleteObjects body names: the same as the resource of that key's PUT. */
    Identified keyInBucket(String bucketPath, String key);

    /** The name a problem detail and the README use for this kind. */
    String kind();
}
