package dev.fencegate.http;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.TokenSignatures;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How this gateway turns a write into its claim: the object is named by the store kind's identity
 * rules, mapped to the resource it is fenced under (its job scope, or itself), and, when tokens
 * must be signed, the issuer's signature of the token on that resource is checked.
 */
public record ClaimRules(StoreIdentity identity, ResourceScopes scopes, Optional<TokenSignatures> signatures) {

    /** The key a grant's signature must name, or why no write there is fenced. */
    public sealed interface SignedKey {
        record Checked(ResourceKey key) implements SignedKey {
        }

        record Refused(Problem problem) implements SignedKey {
        }
    }

    /** The default store kind (S3, path-style, Hosts under localhost refused), every object its own resource, unsigned tokens. */
    public static ClaimRules plain() {
        return new ClaimRules(new S3PathIdentity(new VirtualHosts(List.of("localhost"))), ResourceScopes.perObject(), Optional.empty());
    }

    public ClaimParser.ClaimParse parse(ResourceKey object, List<String> tokenValues, List<String> holderValues,
                                        List<String> signatureValues) {
        ClaimParser.ClaimParse parsed = ClaimParser.parse(object, tokenValues, holderValues);
        if (!(parsed instanceof ClaimParser.ClaimParse.Valid valid)) {
            return parsed;
        }
        FenceClaim objectClaim = valid.claim();
        SignedKey resource = resourceOf(objectClaim.resource());
        if (resource instanceof SignedKey.Refused refused) {
            return new ClaimParser.ClaimParse.Refused(refused.problem());
        }
        FenceClaim claim = new FenceClaim(((SignedKey.Checked) resource).key(), objectClaim.token(), objectClaim.holder());
        if (signatures.isEmpty()) {
            return new ClaimParser.ClaimParse.Valid(claim);
        }
        if (signatureValues.size() > 1) {
            return refused(Outcome.BAD_TOKEN_SIGNATURE, "expected one " + HeaderNames.FENCING_TOKEN_SIGNATURE
                    + " header, got " + signatureValues.size());
        }
        String presented = signatureValues.isEmpty() ? null : signatureValues.get(0);
        Optional<String> problem = signatures.get().verify(claim, presented);
        if (problem.isPresent()) {
            return refused(presented == null ? Outcome.UNSIGNED_TOKEN : Outcome.BAD_TOKEN_SIGNATURE, problem.get());
        }
        return new ClaimParser.ClaimParse.Valid(claim);
    }

    /**
     * The key the data port checks a PUT of {@code target} against, and so the key its token's
     * signature names: the object as this store kind names it from the path and {@code host} (the
     * Host header, null for none), then its job scope. A {@code target} that is itself a scope key
     * is that key, as writes below it are checked against it. Where the data port would refuse the
     * write before its token is read, the refusal.
     */
    public SignedKey keyToSign(String target, String host) {
        StoreIdentity.Identified identified = identity.identify("PUT", target, host, null);
        if (identified instanceof StoreIdentity.Identified.Refused refused) {
            return new SignedKey.Refused(refused.problem());
        }
        ResourceKey object = ((StoreIdentity.Identified.Resource) identified).key();
        if (isS3()) {
            Optional<String> unfenceable = S3Requests.unfenceable("PUT", target, object.value(), false, List::of);
            if (unfenceable.isPresent()) {
                return new SignedKey.Refused(Problem.of(Outcome.UNFENCEABLE_WRITE, unfenceable.get()));
            }
        }
        // The job's key named as such; spelt as an object (a trailing '/'), it is a write of that object.
        int query = target.indexOf('?');
        boolean namedAsKey = !(query < 0 ? target : target.substring(0, query)).endsWith("/");
        return namedAsKey && scopes.isScopeKey(object) ? new SignedKey.Checked(object) : resourceOf(object);
    }

    private SignedKey resourceOf(ResourceKey object) {
        Optional<ResourceKey> resource = scopes.resourceOf(object);
        // A job's key matches no template itself (they need a segment below it): only then is it looked for.
        boolean unscoped = resource.isEmpty() || resource.get().equals(object);
        if (unscoped && scopes.isScopeKey(object)) {
            // Under the S3 kinds a top-level name is a bucket: its own writes (CreateBucket,
            // DeleteBucket) are the bucket's, at the fence of the scope it is the key of.
            if (isS3() && object.value().indexOf('/', 1) < 0) {
                return new SignedKey.Checked(object);
            }
            // Any other object bearing a job's key would be fenced as the job (under --unscoped-writes per-object).
            return new SignedKey.Refused(Problem.of(Outcome.OUTSIDE_EVERY_SCOPE, "the object " + object + " has the name of a"
                    + " job's key (" + scopes.describe() + "): it would share that job's fence; refused"));
        }
        if (resource.isEmpty()) {
            return new SignedKey.Refused(Problem.of(Outcome.OUTSIDE_EVERY_SCOPE, object + " is under no configured scope ("
                    + scopes.describe() + ")"));
        }
        return new SignedKey.Checked(resource.get());
    }

    private boolean isS3() {
        return identity instanceof S3StoreIdentity;
    }

    /**
     * Why no write is checked against the fence of {@code key}, naming the key writes to that
     * object are checked against; empty when writes are checked against it. An operator's raise
     * of another key would answer as if it fenced the object and fence nothing: under the S3 kinds
     * {@code /b/dir/} is fenced as {@code /b/dir} and {@code /} is never written, under {@code http}
     * and {@code webdav} a collection path is never written, and under a job scope an object is
     * fenced as its job.
     */
    public Optional<String> whyNoWriteIsFencedUnder(ResourceKey key) {
        if (scopes.isScopeKey(key)) {
            return Optional.empty();
        }
        ResourceKey object = key;
        boolean s3 = isS3();
        if (s3 && key.value().equals("/")) {
            return Optional.of("no write is fenced under /: it names no bucket, and a write of it is refused under --store-kind "
                    + identity.kind() + " (S3 defines no write on the service root)");
        }
        if (key.value().endsWith("/") && (key.value().length() > 1 || !s3)) {
            if (!s3) {
                return Optional.of("no write is fenced under " + key + ": a write to a collection path is refused under --store-kind "
                        + identity.kind());
            }
            object = new ResourceKey(key.value().substring(0, key.value().length() - 1));
        }
        Optional<ResourceKey> resource = scopes.resourceOf(object);
        if (resource.isEmpty()) {
            return Optional.of("no write is fenced under " + key + ": it is under no configured scope (" + scopes.describe() + ")");
        }
        if (!resource.get().equals(key)) {
            return Optional.of("writes to " + key + " are checked against the fence of " + resource.get() + "; name that key");
        }
        return Optional.empty();
    }

    /**
     * The claims of a DeleteObjects request: one per resource its keys fall under. One unusable
     * key refuses the whole request. Where the store kind says the request may also write its own
     * path, that path is claimed first, as a write of it would be. A signed deployment cannot sign many keys in one header, so
     * there every key must fall under one resource, the one the signature names.
     */
    public ClaimParser.ClaimsParse parseAll(String bucketPath, List<String> keys, List<String> tokenValues,
                                            List<String> holderValues, List<String> signatureValues) {
        Map<ResourceKey, FenceClaim> claims = new LinkedHashMap<>();
        if (identity.deleteObjectsWritesItsPath()) {
            ClaimParser.ClaimParse parsed = parse(new ResourceKey(bucketPath), tokenValues, holderValues, signatureValues);
            if (parsed instanceof ClaimParser.ClaimParse.Refused refused) {
                return new ClaimParser.ClaimsParse.Refused(refused.problem());
            }
            FenceClaim claim = ((ClaimParser.ClaimParse.Valid) parsed).claim();
            claims.put(claim.resource(), claim);
        }
        for (String key : keys) {
            StoreIdentity.Identified object = identity.keyInBucket(bucketPath, key);
            ClaimParser.ClaimParse parsed = object instanceof StoreIdentity.Identified.Resource resource
                    ? parse(resource.key(), tokenValues, holderValues, signatureValues)
                    : new ClaimParser.ClaimParse.Refused(object instanceof StoreIdentity.Identified.Refused refused
                            ? refused.problem() : Problem.of(Outcome.AMBIGUOUS_PATH, "names no single object"));
            if (parsed instanceof ClaimParser.ClaimParse.Refused refused) {
                Problem problem = refused.problem();
                return new ClaimParser.ClaimsParse.Refused(new Problem(problem.outcome(),
                        "DeleteObjects key '" + key + "': " + problem.detail(), problem.extensions()));
            }
            FenceClaim claim = ((ClaimParser.ClaimParse.Valid) parsed).claim();
            claims.putIfAbsent(claim.resource(), claim);
        }
        return new ClaimParser.ClaimsParse.Valid(List.copyOf(claims.values()));
    }

    private static ClaimParser.ClaimParse refused(Outcome outcome, String detail) {
        return new ClaimParser.ClaimParse.Refused(Problem.of(outcome, detail));
    }
}
