package dev.fencegate.proxy;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.WriteClassifier;
import dev.fencegate.http.ClaimParser;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.HeaderNames;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import dev.fencegate.http.StoreIdentity;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;

/**
 * Where a request head goes, decided from the head alone: answered by the gateway, passed through
 * unfenced, fenced as one claim, or read whole first as a DeleteObjects request. Nothing here
 * reads a body or touches a channel.
 */
sealed interface RequestRoute {

    /**
     * Answered by the gateway. {@code close}: the head itself is broken or refused, so nothing
     * after it on the connection can be trusted; otherwise the connection may be kept.
     */
    record Answer(Problem problem, boolean close) implements RequestRoute {
    }

    record PassThrough() implements RequestRoute {
    }

    record Fenced(FenceClaim claim) implements RequestRoute {
    }

    /** Keys in the body, each in the bucket at {@code bucketPath}, as the store kind names it. */
    record DeleteObjects(String bucketPath) implements RequestRoute {
    }

    static RequestRoute of(HttpRequest head, EdgePolicy policy, ClaimRules claims) {
        if (head.decoderResult().isFailure()) {
            return new Answer(RequestScreen.decoderFailure(head.decoderResult().cause()), true);
        }
        WriteClassifier.Kind kind = WriteClassifier.classify(head.method().name());
        if (kind == WriteClassifier.Kind.REFUSED) {
            return new Answer(Problem.of(Outcome.METHOD_NOT_ALLOWED, "method " + head.method() + " is not served"), true);
        }
        Problem screened = RequestScreen.check(head, policy);
        if (screened != null) {
            return new Answer(screened, true);
        }
        if (kind == WriteClassifier.Kind.READ) {
            return new PassThrough();
        }
        StoreIdentity.Identified object = claims.identity().identify(head.method().name(), head.uri(),
                head.headers().get(HttpHeaderNames.HOST), head.headers().get(HeaderNames.DESTINATION));
        if (object instanceof StoreIdentity.Identified.Refused refused) {
            return new Answer(refused.problem(), false);
        }
        if (object instanceof StoreIdentity.Identified.KeysInBody keys) {
            return new DeleteObjects(keys.bucketPath());
        }
        ClaimParser.ClaimParse parsed = claims.parse(((StoreIdentity.Identified.Resource) object).key(),
                head.headers().getAll(HeaderNames.FENCING_TOKEN),
                head.headers().getAll(HeaderNames.FENCING_HOLDER), head.headers().getAll(HeaderNames.FENCING_TOKEN_SIGNATURE));
        if (parsed instanceof ClaimParser.ClaimParse.Refused refused) {
            return new Answer(refused.problem(), false);
        }
        return new Fenced(((ClaimParser.ClaimParse.Valid) parsed).claim());
    }
}
