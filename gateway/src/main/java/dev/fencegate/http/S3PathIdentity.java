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
public record S3PathIdentity(VirtualHosts domains, boolean allowTemporaryNames) implements S3StoreIdentity {

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

    @Override
    public String kind() {
        return "s3-path";
    }
}
