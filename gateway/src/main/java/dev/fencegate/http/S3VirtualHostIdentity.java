package dev.fencegate.http;

import dev.fencegate.fence.ResourceKey;

/**
 * An S3 store with virtual hosting on ({@code --store-kind s3-virtual-host}): the Host header
 * names the bucket, as a subdomain of one of the store's domains or, CNAME style, as any other
 * name, and a Host that is one of the domains is path-style. The resource is the object's
 * path-style name, {@code /bucket/key}, so every addressing of one object meets one fence; a Host
 * stores would read differently is refused. {@code /bucket/key/} is fenced as {@code /bucket/key}.
 * A key that still holds an escape once decoded ({@code /%2572eport}, the key {@code %72eport}) is
 * refused: Ozone's S3 gateway, in virtual-host style, decodes the path a second time and writes
 * {@code report}.
 */
public record S3VirtualHostIdentity(VirtualHosts domains, boolean allowTemporaryNames) implements S3StoreIdentity {

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
        if (path instanceof Identified.Resource resource && ObjectPaths.holdsAnEscapeOnceDecoded(resource.key().value())) {
            return ObjectPaths.refused(Outcome.AMBIGUOUS_PATH, "the key '" + resource.key() + "' holds '%' and two hexadecimal"
                    + " digits once decoded, an escape a store in virtual-host style (Ozone) decodes again, writing another"
                    + " key; name the object without them");
        }
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
