package dev.fencegate.http;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.TokenSignatures;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads what a write claims (resource, token, holder) from its target and headers. */
public final class ClaimParser {

    /** Either the claim, or the problem that refuses the write before the fence is asked. */
    public sealed interface ClaimParse {
        record Valid(FenceClaim claim) implements ClaimParse {
        }

        record Refused(Problem problem) implements ClaimParse {
        }
    }

    /** Either one claim per distinct resource, or the problem that refuses the whole request. */
    public sealed interface ClaimsParse {
        record Valid(List<FenceClaim> claims) implements ClaimsParse {
        }

        record Refused(Problem problem) implements ClaimsParse {
        }
    }

    private ClaimParser() {
    }

    /**
     * The claims of a DeleteObjects request: one per key in the bucket at {@code bucketPath},
     * each key canonicalised like any path. One unusable key refuses the whole request.
     */
    public static ClaimsParse parseAll(String bucketPath, List<String> keys, List<String> tokenValues, List<String> holderValues) {
        Map<ResourceKey, FenceClaim> claims = new LinkedHashMap<>();
        for (String key : keys) {
            ClaimParse parsed = parse(DeleteObjectsKeys.target(bucketPath, key), tokenValues, holderValues);
            if (parsed instanceof ClaimParse.Refused refused) {
                Problem problem = refused.problem();
                return new ClaimsParse.Refused(new Problem(problem.outcome(),
                        "DeleteObjects key '" + key + "': " + problem.detail(), problem.extensions()));
            }
            FenceClaim claim = ((ClaimParse.Valid) parsed).claim();
            claims.putIfAbsent(claim.resource(), claim);
        }
        return new ClaimsParse.Valid(List.copyOf(claims.values()));
    }

    /**
     * As {@link #parse(String, List, List)}, and when tokens must be signed, the claim must carry
     * its issuer's signature in exactly one header.
     */
    public static ClaimParse parse(String target, List<String> tokenValues, List<String> holderValues,
                                   Optional<TokenSignatures> signatures, List<String> signatureValues) {
        ClaimParse parsed = parse(target, tokenValues, holderValues);
        if (signatures.isEmpty() || !(parsed instanceof ClaimParse.Valid valid)) {
            return parsed;
        }
        if (signatureValues.size() > 1) {
            return new ClaimParse.Refused(Problem.of(Outcome.BAD_TOKEN_SIGNATURE,
                    "expected one " + HeaderNames.FENCING_TOKEN_SIGNATURE + " header, got " + signatureValues.size()));
        }
        String presented = signatureValues.isEmpty() ? null : signatureValues.get(0);
        Optional<String> problem = signatures.get().verify(valid.claim(), presented);
        if (problem.isEmpty()) {
            return parsed;
        }
        return new ClaimParse.Refused(Problem.of(presented == null ? Outcome.UNSIGNED_TOKEN : Outcome.BAD_TOKEN_SIGNATURE,
                problem.get()));
    }

    public static ClaimParse parse(String target, List<String> tokenValues, List<String> holderValues) {
        ResourcePaths.PathParse path = ResourcePaths.canonicalise(target);
        if (path instanceof ResourcePaths.PathParse.Refused refused) {
            return new ClaimParse.Refused(Problem.of(Outcome.AMBIGUOUS_PATH, "request target refused: " + refused.detail()));
        }
        FencingHeaders.TokenParse token = FencingHeaders.token(tokenValues);
        if (token instanceof FencingHeaders.TokenParse.Refused refused) {
            return new ClaimParse.Refused(Problem.of(refused.refusal()));
        }
        FencingHeaders.HolderParse holder = FencingHeaders.holder(holderValues);
        if (holder instanceof FencingHeaders.HolderParse.Refused refused) {
            return new ClaimParse.Refused(Problem.of(refused.refusal()));
        }
        return new ClaimParse.Valid(new FenceClaim(
                ((ResourcePaths.PathParse.Canonical) path).key(),
                ((FencingHeaders.TokenParse.Valid) token).token(),
                ((FencingHeaders.HolderParse.Valid) holder).holder()));
    }
}
