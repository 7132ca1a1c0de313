package dev.fencegate.proxy;

import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.UploadOwners;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import dev.fencegate.http.UploadIds;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A store answer kept from the client until a check of it passes, read whole within a small
 * bound: the answer to CreateMultipartUpload, whose upload id must be recorded for its object
 * before the client can use it. Lives on the client's event loop; the check runs elsewhere.
 */
final class CheckedAnswer {

    /** Judges a whole answer; empty when it may go to the client. */
    interface Check {
        CompletableFuture<Optional<Problem>> apply(int status, byte[] body);
    }

    private final Check check;
    private final int limit;
    private final List<HttpObject> messages = new ArrayList<>();
    private int bytes;

    CheckedAnswer(Check check, int limit) {
        this.check = check;
        this.limit = limit;
    }

    /**
     * The check for a CreateMultipartUpload answer: a refusal by the store passes unchanged; a
     * success passes once its upload id is recorded durably for {@code object}. No id, or no
     * record, and the client gets an error instead, never an id the gateway does not know.
     */
    static CheckedAnswer recordingUploadId(UploadOwners owners, ResourceKey object) {
        return new CheckedAnswer((status, body) -> {
            if (status < 200 || status > 299) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            Optional<String> id = UploadIds.ofAnswer(body);
            if (id.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.of(Problem.of(Outcome.STORE_ANSWER_UNREADABLE,
                        "the store's CreateMultipartUpload answer for " + object + " named no UploadId")));
            }
            return owners.record(id.get(), object).handle((recorded, failure) -> failure == null ? Optional.empty()
                    : Optional.of(Problem.of(Outcome.FENCE_UNAVAILABLE, "the upload id for " + object
                    + " could not be recorded, so it is not handed out: " + failure.getMessage())));
        }, UploadIds.MAX_ANSWER);
    }

    /** Takes ownership of {@code msg}; false, with everything released, once the answer outgrows the bound. */
    boolean add(HttpObject msg) {
        messages.add(msg);
        if (msg instanceof HttpContent content) {
            bytes += content.content().readableBytes();
        }
        if (bytes > limit) {
            release();
            return false;
        }
        return true;
    }

    CompletableFuture<Optional<Problem>> check(int status) {
        byte[] body = new byte[bytes];
        int at = 0;
        for (HttpObject msg : messages) {
            if (msg instanceof HttpContent content) {
                int length = content.content().readableBytes();
                content.content().getBytes(content.content().readerIndex(), body, at, length);
                at += length;
            }
        }
        try {
            return check.apply(status, body);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Hands the kept answer to the client, unchanged. */
    void writeTo(ChannelHandlerContext client) {
        messages.forEach(client::write);
        messages.clear();
        client.flush();
    }

    void release() {
        messages.forEach(ReferenceCountUtil::release);
        messages.clear();
    }
}
