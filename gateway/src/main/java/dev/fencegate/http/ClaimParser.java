package dev.fencegate.http;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.ResourceKey;
import java.util.List;

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

    public static ClaimParse parse(String target, List<String> tokenValues, List<String> holderValues) {
        ResourcePaths.PathParse path = ResourcePaths.canonicalise(target);
        if (path instanceof ResourcePaths.PathParse.Refused refused) {
            return new ClaimParse.Refused(Problem.of(Outcome.AMBIGUOUS_PATH, "request target refused: " + refused.detail()));
        }
        return parse(((ResourcePaths.PathParse.Canonical) path).key(), tokenValues, holderValues);
    }

    /** The claim on an object already named by its store's identity rules. */
    public static ClaimParse parse(ResourceKey object, List<String> tokenValues, List<String> holderValues) {
        FencingHeaders.TokenParse token = FencingHeaders.token(tokenValues);
        if (token instanceof FencingHeaders.TokenParse.Refused refused) {
            return new ClaimParse.Refused(Problem.of(refused.refusal()));
        }
        FencingHeaders.HolderParse holder = FencingHeaders.holder(holderValues);
        if (holder instanceof FencingHeaders.HolderParse.Refused refused) {
            return new ClaimParse.Refused(Problem.of(refused.refusal()));
        }
        return new ClaimParse.Valid(new FenceClaim(object,
                ((FencingHeaders.TokenParse.Valid) token).token(),
                ((FencingHeaders.HolderParse.Valid) holder).holder()));
    }
}
