package dev.fencegate.proxy;

import dev.fencegate.http.ClaimParser;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.DeleteObjectsKeys;
import dev.fencegate.http.HeaderNames;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Supplier;

/**
 * Reads a DeleteObjects request (POST /bucket?delete) far enough to fence it: its token and
 * target before the body, then the whole body, bounded, then one claim per key it names. The
 * body is kept unchanged, to be relayed once every claim was admitted.
 */
final class DeleteObjectsIntake {

    private final HttpRequest head;
    private final String bucketPath;
    private final BoundedBodyCollector body;
    private final int limit;
    private final ClaimRules rules;

    private DeleteObjectsIntake(HttpRequest head, String bucketPath, BoundedBodyCollector body, int limit, ClaimRules rules) {
        this.head = head;
        this.bucketPath = bucketPath;
        this.body = body;
        this.limit = limit;
        this.rules = rules;
    }

    /** Either an intake ready for the body, or the problem that refuses the request before it is read. */
    sealed interface Start {
        record Ready(DeleteObjectsIntake intake) implements Start {
        }

        record Refused(Problem problem) implements Start {
        }
    }

    /** @param bucketPath the bucket the store kind's identity rules read from the head */
    static Start start(HttpRequest head, String bucketPath, int limit, BodyBudget budget, ByteBufAllocator allocator, ClaimRules rules) {
        ClaimParser.ClaimParse token = ClaimParser.parse(bucketPath, tokens(head), holders(head));
        if (token instanceof ClaimParser.ClaimParse.Refused refused) {
            return new Start.Refused(refused.problem());
        }
        if (HttpUtil.getContentLength(head, 0L) > limit) {
            return new Start.Refused(tooLarge(limit));
        }
        return new Start.Ready(new DeleteObjectsIntake(head, bucketPath, new BoundedBodyCollector(allocator, limit, budget), limit, rules));
    }

    /** Takes ownership of {@code content}; null while the body is within its limit and the shared budget, else the problem. */
    Problem add(HttpContent content) {
        return switch (body.add(content)) {
            case KEPT -> null;
            case TOO_LARGE -> tooLarge(limit);
            case NO_ROOM -> Problem.of(Outcome.BODIES_BUSY, "the DeleteObjects bodies being read at once fill the gateway's"
                    + " budget for them; retry");
        };
    }

    boolean complete() {
        return body.complete();
    }

    /**
     * Made on the event loop once the body is complete, run on any thread: one claim per distinct
     * key, or the problem that refuses the whole request. It holds the body and the head's values
     * it needs, so the request may end and release them meanwhile.
     */
    Supplier<ClaimParser.ClaimsParse> claimsReader() {
        List<String> tokens = tokens(head);
        List<String> holders = holders(head);
        List<String> signatures = head.headers().getAll(HeaderNames.FENCING_TOKEN_SIGNATURE);
        InputStream held = body.stream();
        return () -> {
            try (InputStream in = held) {
                DeleteObjectsKeys.KeysParse keys = DeleteObjectsKeys.parse(in);
                if (keys instanceof DeleteObjectsKeys.KeysParse.Refused refused) {
                    return new ClaimParser.ClaimsParse.Refused(Problem.of(Outcome.BAD_REQUEST, refused.detail()));
                }
                return rules.parseAll(bucketPath, ((DeleteObjectsKeys.KeysParse.Keys) keys).keys(), tokens, holders, signatures);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    /** The body, unchanged, for the store; the caller owns it from here. */
    LastHttpContent takeBody() {
        return body.take();
    }

    void release() {
        body.release();
    }

    private static Problem tooLarge(int limit) {
        return Problem.of(Outcome.PAYLOAD_TOO_LARGE, "DeleteObjects body above the limit of " + limit + " bytes");
    }

    private static List<String> tokens(HttpRequest head) {
        return head.headers().getAll(HeaderNames.FENCING_TOKEN);
    }

    private static List<String> holders(HttpRequest head) {
        return head.headers().getAll(HeaderNames.FENCING_HOLDER);
    }
}
