package dev.fencegate.http;

import dev.fencegate.fence.ResourceKey;

/**
 * An S3 store with virtual hosting on ({@code --store-kind s3-virtual-host}): the Host header
 * names the bucket, as a subdomain of one of the store's domains or, CNAME style, as any other
 * name, and a Host that is one of the domains is path-style. The resource is the object's
 * path-style name, {@code /bucket/key}, so every addressing of one object meets one fence; a Host
 * stores would read differently is refused. {@code /bucket/key/} is fenced as {@code /bucket/key}.
 */
public record S3VirtualHostIdentity(VirtualHosts domains, boolean allowTemporaryNames) implements StoreIdentity {

    /** With the names S3Proxy's file store writes PUTs in progress to refused. */
    public S3VirtualHostIdentity(VirtualHosts domains) {
        this(domains, false);
    }

    public S3VirtualHostIdentity {
        if (domains.domains().isEmpty()) {
            throw new IllegalArgumentException("--store-kind s3-virtual-host needs the store's base domains in --virtual-host-domains");
        }
    }

    @Override
    public Identified identify(String method, String target, String host, String destination) {
        VirtualHosts.Addressing addressing = domains.address(host);
        if (addressing instanceof VirtualHosts.Addressing.Unclear unclear) {
            return ObjectPaths.refused(Outcome.AMBIGUOUS_HOST, unclear.detail());
        }
        Identified path = ObjectPaths.canonical(target);
        if (addressing instanceof VirtualHosts.Addressing.Bucket bucket && path instanceof Identified.Resource resource) {
            path = new Identified.Resource(new ResourceKey("/" + bucket.name() + resource.key().value()));
        }
        if (S3Requests.isDeleteObjects(method, target)) {
            return ObjectPaths.deleteObjects(path);
        }
        return ObjectPaths.s3Object(path, allowTemporaryNames);
    }

    @Override
    public Identified keyInBucket(String bucketPath, String key) {
        return ObjectPaths.s3Object(ObjectPaths.keyPath(bucketPath, key), allowTemporaryNames);
    }

    @Override
    public String kind() {
        return "s3-virtual-host";
    }
}
