package dev.fencegate.proxy;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.SendWindow;
import dev.fencegate.http.ClaimParser;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the fence about the request a {@link ClientRequestReceiver} holds paused: one claim; a
 * multipart step's upload owner, then its claim; or every key a DeleteObjects body names, the
 * body read whole first. Runs on the client's event loop, except the reading of DeleteObjects'
 * keys; the answers are handed back to it.
 */
final class FenceQuestions {

    private static final Logger log = LoggerFactory.getLogger(FenceQuestions.class);

    private final GatewayRuntime runtime;
    private final EdgePolicy policy;
    private final ChannelHandlerContext ctx;
    private final ClientRequestReceiver receiver;
    private final StoreForwarding forwarding;
    /** A DeleteObjects request whose body is being read before the fence is asked. */
    private DeleteObjectsIntake intake;
    /** The store being asked whether a DELETE's path is a collection, until it has answered. */
    private CollectionProbe probe;

    FenceQuestions(GatewayRuntime runtime, EdgePolicy policy, ChannelHandlerContext ctx, ClientRequestReceiver receiver,
                   StoreForwarding forwarding) {
        this.runtime = runtime;
        this.policy = policy;
        this.ctx = ctx;
        this.receiver = receiver;
        this.forwarding = forwarding;
    }

    void check(FenceClaim claim) {
        receiver.enter(ClientRequestReceiver.State.CHECKING_FENCE);
        receiver.record().fenceAsked(claim);
        runtime.fences().check(claim, ctx.executor()).thenAccept(this::onDecisionInLoop);
    }

    /**
     * A DELETE under a kind whose store may be a WebDAV server: the store is asked first whether
     * its path is a collection, which a store ignoring {@code Depth} would delete whole
     * ({@link CollectionProbe}); only a DELETE of no collection goes on to its fence. Nothing is
     * read from the client meanwhile.
     */
    void checkNotACollection(FenceClaim claim) {
        receiver.enter(ClientRequestReceiver.State.CHECKING_FENCE);
        receiver.record().fenceAsked(claim);
        HttpRequest asked = receiver.request();
        probe = CollectionProbe.ask(runtime.storeConnections(), ctx.channel().eventLoop(), runtime.upstreamPathPrefix() + asked.uri(),
                asked.uri(), asked.headers(), runtime.upstreamTimeoutMillis());
        // Completed only with an answer: a failure, a deadline or the client's going is a refusal.
        probe.answer().thenAccept(refusal -> guarded(() -> {
            probe = null;
            if (!receiver.in(ClientRequestReceiver.State.CHECKING_FENCE) || receiver.request() != asked) {
                return;
            }
            if (refusal.isPresent()) {
                receiver.refuse(refusal.get());
            } else {
                check(claim);
            }
        }));
    }

    /** The client went: a store still being asked about its DELETE's path is not waited for. */
    void onClientClosed() {
        if (probe != null) {
            probe.cancel();
        }
    }

    /**
     * A multipart step's upload id must have been created for this object (the store would find
     * another object's upload by the id alone); only then is the fence asked. Nothing is read
     * from the client meanwhile.
     */
    void checkUploadOwner(RequestRoute.FencedUploadStep step) {
        receiver.enter(ClientRequestReceiver.State.CHECKING_FENCE);
        HttpRequest asked = receiver.request();
        runtime.uploads().ownerOf(step.uploadId()).whenComplete((owner, failure) -> ctx.executor().execute(() -> guarded(() -> {
            if (!receiver.in(ClientRequestReceiver.State.CHECKING_FENCE) || receiver.request() != asked) {
                return;
            }
            Optional<Problem> refusal = failure != null
                    ? Optional.of(Problem.of(Outcome.FENCE_UNAVAILABLE, "owner of upload id " + step.uploadId() + " unknown: " + failure))
                    : step.refusal(owner);
            if (refusal.isPresent()) {
                receiver.refuse(refusal.get());
            } else {
                check(step.claim());
            }
        })));
    }

    /** Decisions come back on this loop (a held fence's at once, the store's in its batch's task); a timeout's is handed back. */
    private void onDecisionInLoop(FenceDecision decision) {
        if (ctx.executor().inEventLoop()) {
            guarded(() -> onDecision(decision));
        } else {
            ctx.executor().execute(() -> guarded(() -> onDecision(decision)));
        }
    }

    /**
     * Runs an answer's handling on the loop. Should it throw (a fault of the gateway's own), the
     * future it runs under would keep the exception and the client would wait out its idle timeout
     * with no answer: the connection is closed instead, which also ends a write under way before
     * more of it reaches the store.
     */
    private void guarded(Runnable handling) {
        try {
            handling.run();
        } catch (RuntimeException | Error e) {
            receiver.exceptionCaught(ctx, e);
        }
    }

    private void onDecision(FenceDecision decision) {
        RequestRecord record = receiver.record();
        if (record != null) {
            record.fenceAnswered(decision);
        }
        if (!receiver.in(ClientRequestReceiver.State.CHECKING_FENCE)) {
            // The client went away meanwhile: nothing was sent, so the outcome is known.
            if (decision instanceof FenceDecision.Admitted admitted) {
                runtime.fences().finished(admitted.claim(), true);
            }
            return;
        }
        if (decision instanceof FenceDecision.Admitted admitted) {
            forwarding.admitted(admitted.window(), outcomeKnown -> runtime.fences().finished(admitted.claim(), outcomeKnown));
        } else {
            receiver.refuse(Problem.of(decision));
        }
    }

    /** DeleteObjects names its keys in the body: it is read whole, within a bound, before the fence is asked. */
    void collectDeleteObjects(HttpRequest head, String bucketPath) {
        DeleteObjectsIntake.Start start = DeleteObjectsIntake.start(head, bucketPath, policy.maxBufferedBody(), policy.bodyBudget(),
                ctx.alloc(), runtime.claims());
        if (start instanceof DeleteObjectsIntake.Start.Refused refused) {
            receiver.refuse(refused.problem());
            return;
        }
        intake = ((DeleteObjectsIntake.Start.Ready) start).intake();
        receiver.enter(ClientRequestReceiver.State.COLLECTING_BODY);
        if (HttpUtil.is100ContinueExpected(head)) {
            // The fence cannot answer before the body is read, so the gateway asks for it now.
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
        receiver.read();
    }

    /** Takes ownership of {@code content}, a chunk of the DeleteObjects body being collected. */
    void onDeleteObjectsContent(HttpContent content) {
        Problem tooLarge = intake.add(content);
        if (tooLarge != null) {
            receiver.refuse(tooLarge);
            return;
        }
        if (!intake.complete()) {
            receiver.read();
            return;
        }
        receiver.enter(ClientRequestReceiver.State.CHECKING_FENCE);
        DeleteObjectsIntake parsing = intake;
        // Up to 8 MiB of XML takes a tenth of a second or more to read, which every other
        // connection of this event loop would wait out: the keys are read on another thread.
        CompletableFuture.supplyAsync(parsing.claimsReader(), ForkJoinPool.commonPool())
                .whenComplete((claims, failure) -> ctx.executor().execute(() -> guarded(() -> onKeysRead(parsing, claims, failure))));
    }

    private void onKeysRead(DeleteObjectsIntake parsed, ClaimParser.ClaimsParse claims, Throwable failure) {
        if (intake != parsed || !receiver.in(ClientRequestReceiver.State.CHECKING_FENCE)) {
            return; // the request ended meanwhile, and its body was dropped with it
        }
        if (failure != null) {
            // Not the body's fault (a malformed one is a refusal, not a failure): said here, not to the client.
            log.warn("DeleteObjects keys could not be read on {}", ctx.channel().remoteAddress(), failure);
            receiver.refuse(Problem.of(Outcome.BAD_REQUEST, "DeleteObjects body could not be read"));
            return;
        }
        if (claims instanceof ClaimParser.ClaimsParse.Refused refused) {
            receiver.refuse(refused.problem());
            return;
        }
        List<FenceClaim> keys = ((ClaimParser.ClaimsParse.Valid) claims).claims();
        receiver.record().fenceAskedForAll(keys);
        if (keys.stream().map(FenceClaim::resource).distinct().count() == 1) {
            checkKeys(keys);
            return;
        }
        // Each key's check raises and names its fence as it is admitted: the fences of all of
        // them are looked at first, so that a request refused for one key changes no other's.
        DeleteObjectsIntake looked = intake;
        runtime.fences().firstRefusal(keys)
                .thenAccept(refusal -> ctx.executor().execute(() -> guarded(() -> onKeysLooked(looked, keys, refusal))));
    }

    private void onKeysLooked(DeleteObjectsIntake looked, List<FenceClaim> keys, Optional<FenceDecision> refusal) {
        if (intake != looked || !receiver.in(ClientRequestReceiver.State.CHECKING_FENCE)) {
            return; // the request ended meanwhile, and its body was dropped with it
        }
        if (refusal.isPresent()) {
            runtime.metrics().fenceDecision(refusal.get());
            receiver.record().fenceAnsweredForAll(new FenceBatch.Result(List.of(), refusal.get()));
            receiver.refuse(Problem.of(refusal.get()));
            return;
        }
        checkKeys(keys);
    }

    private void checkKeys(List<FenceClaim> keys) {
        FenceBatch.check(keys, claim -> runtime.fences().check(claim, ctx.executor()),
                        decision -> ctx.executor().execute(() -> runtime.metrics().fenceDecision(decision)))
                .thenAccept(result -> ctx.executor().execute(() -> guarded(() -> onBatchDecision(result))));
    }

    private void onBatchDecision(FenceBatch.Result result) {
        receiver.record().fenceAnsweredForAll(result);
        List<FenceClaim> admitted = result.admitted().stream().map(FenceDecision.Admitted::claim).toList();
        if (!receiver.in(ClientRequestReceiver.State.CHECKING_FENCE) || !result.allAdmitted()) {
            admitted.forEach(claim -> runtime.fences().finished(claim, true));
            if (receiver.in(ClientRequestReceiver.State.CHECKING_FENCE)) {
                receiver.refuse(Problem.of(result.refusal()));
            }
            return;
        }
        forwarding.hold(intake.takeBody());
        intake = null;
        forwarding.admitted(SendWindow.allOf(result.admitted().stream().map(FenceDecision.Admitted::window).toList()),
                outcomeKnown -> admitted.forEach(claim -> runtime.fences().finished(claim, outcomeKnown)));
    }

    /** Whether a DeleteObjects body is being collected. */
    boolean collecting() {
        return intake != null;
    }

    /** Releases a DeleteObjects body collected for a request that is not forwarded. */
    void dropBody() {
        if (intake != null) {
            intake.release();
            intake = null;
        }
    }
}
