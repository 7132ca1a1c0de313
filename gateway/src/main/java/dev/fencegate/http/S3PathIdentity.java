package dev.fencegate.http;

import java.util.Optional;

/**
 * An S3 store addressed path-style, {@code /bucket/key} ({@code --store-kind s3-path}, the default):
 * the object is the canonical path, and {@code /bucket/key/} is fenced as {@code /bucket/key} (one
 * fence for two objects where a store keeps them apart: the safe direction). A Host under one of
 * the store's domains names a bucket in the virtual-host style the store must not be serving in
 * this kind; such writes are refused, not fenced under a path that lacks the bucket. A store that does virtual hosting, CNAME-style
 * Hosts included, is {@code s3-virtual-host}.
 */
public record S3PathIdentity(VirtualHosts domains, boolean allowTemporaryNames) implements StoreIdentity {

    /** With the names S3Proxy's file store writes PUTs in progress to refused. */
    public S3PathIdentity(VirtualHosts domains) {
        this(domains, false);
    }

    @Override
    public Identified identify(String method, String target, String host, String destination) {
        Optional<String> bucket = domains.bucket(host);
        if (bucket.isPresent()) {
            return ObjectPaths.refused(Outcome.AMBIGUOUS_HOST, "Host names the bucket '" + bucket.get()
                    + "' (virtual-host style); send writes path-style, /bucket/key");
        }
        if (S3Requests.isDeleteObjects(method, target)) {
            return ObjectPaths.deleteObjects(ObjectPaths.canonical(target));
        }
        return ObjectPaths.s3Object(ObjectPaths.canonical(target), allowTemporaryNames);
    }

    @Override
    public Identified keyInBucket(String bucketPath, String key) {
        return ObjectPaths.s3Object(ObjectPaths.keyPath(bucketPath, key), allowTemporaryNames);
    }

    /**
     * S3 reads no {@code Depth}; a WebDAV store behind an S3 kind set by mistake refuses, at
     * {@code Depth: 0}, to delete a collection (nginx, Apache mod_dav), each object under it fenced
     * on its own. It is not asked first: an S3 store would refuse a PROPFIND signed for a DELETE.
     */
    @Override
    public Optional<String> deleteDepth() {
        return Optional.of("0");
    }

    @Override
    public boolean asksWhetherADeleteNamesACollection() {
        return false;
    }

    @Override
    public String kind() {
        return "s3-path";
    }
}
