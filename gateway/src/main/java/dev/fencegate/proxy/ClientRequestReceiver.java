package dev.fencegate.proxy;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.SendWindow;
import dev.fencegate.http.ClaimParser;
import dev.fencegate.http.ErrorFormat;
import dev.fencegate.http.HeaderNames;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client-facing end of a connection. Reads one request head, pauses, has a write judged by
 * the fence, then relays it to the store or answers it itself. Auto-read is off: the next
 * message is read only when this handler asks for it, so nothing is read while the fence or
 * the store is busy, and pipelined requests wait their turn in the socket.
 */
final class ClientRequestReceiver extends ChannelInboundHandlerAdapter implements StoreExchange.Listener {

    private static final Logger log = LoggerFactory.getLogger(ClientRequestReceiver.class);

    /** Largest body of a refused request read and dropped to keep the connection; above it, the connection closes. */
    private static final long DISCARDABLE_BODY = 64 * 1024;

    private enum State {
        AWAITING_REQUEST, COLLECTING_BODY, CHECKING_FENCE, AWAITING_BODY, FORWARDING, DISCARDING_BODY, CLOSING
    }

    private final GatewayRuntime runtime;
    private final EdgePolicy policy;
    /** Whether nothing of a next request has arrived on this connection. */
    private final BooleanSupplier quietBetweenRequests;
    private ChannelHandlerContext ctx;
    private State state = State.AWAITING_REQUEST;
    private HttpRequest request;
    private RequestRecord record;
    private ErrorFormat errorFormat = ErrorFormat.PROBLEM_JSON;
    private StoreExchange exchange;
    /** A DeleteObjects request whose body is being read before the fence is asked. */
    private DeleteObjectsIntake intake;
    /** Body read before the exchange started (a first chunk, or a whole DeleteObjects body): relayed first. */
    private HttpContent held;
    /** What to tell the fence when an admitted write waiting for its first body chunk ends. */
    private StoreExchange.AfterStore pendingAfterStore;
    /** The window the fence admitted the current write within; waiting for its body counts against it. */
    private SendWindow window = SendWindow.OPEN;
    /** Body bytes relayed for the current request, against the body limit. */
    private long bodyBytes;
    /** A read() asked for and not yet answered by a message. */
    private boolean readWanted;
    /** The current request's last body chunk has been read (relayed, held or dropped). */
    private boolean bodyEnded;
    /** For CreateMultipartUpload: the store's answer, kept until its upload id is recorded. */
    private CheckedAnswer checkedAnswer;
    /** The request's Host, swapped for the store's own, where the store gets that (see {@link StoreHost}). */
    private StoreHost storeHost;

    ClientRequestReceiver(GatewayRuntime runtime, EdgePolicy policy, BooleanSupplier quietBetweenRequests) {
        this.runtime = runtime;
        this.policy = policy;
        this.quietBetweenRequests = quietBetweenRequests;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        read();
        ctx.fireChannelActive();
    }

    /** Every read goes through here, so that an unanswered one can be asked for again. */
    private void read() {
        readWanted = true;
        ctx.read();
    }

    /** The exchange wants more body: what was held back goes first, then the client is read. */
    @Override
    public void readRequestBody() {
        if (held != null) {
            HttpContent first = held;
            held = null;
            relay(first);
        } else {
            read();
        }
    }

    /**
     * FlowControlHandler counts a read() as answered once a read cycle completes, even if the
     * cycle brought nothing for this handler; ask again, or the connection stalls.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (readWanted) {
            ctx.read();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        readWanted = false;
        if (msg instanceof HttpRequest head) {
            onRequest(head);
        }
        if (msg instanceof LastHttpContent) {
            bodyEnded = true;
        }
        if (msg instanceof HttpContent content) {
            onContent(content);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onRequest(HttpRequest head) {
        if (state != State.AWAITING_REQUEST) {
            reject(Problem.of(Outcome.BAD_REQUEST, "a request arrived before the previous one was answered"));
            return;
        }
        request = head;
        window = SendWindow.OPEN;
        record = runtime.record(head.method().name(), head.uri());
        bodyBytes = 0;
        bodyEnded = false;
        errorFormat = ErrorFormat.of(head.headers().get(HttpHeaderNames.AUTHORIZATION),
                head.headers().get("x-amz-content-sha256"), head.uri());
        RequestRoute route = RequestRoute.of(head, policy, runtime.claims());
        if (route instanceof RequestRoute.Answer answer) {
            answer(answer.problem(), answer.close());
            return;
        }
        ForwardedHeaders.dropUnlessTrusted(head.headers(), ctx.channel().remoteAddress(), policy.trustedProxies());
        storeHost = runtime.storeHost().map(store -> new StoreHost(store, head.headers().get(HttpHeaderNames.HOST))).orElse(null);
        if (storeHost != null) {
            storeHost.toStore(head.headers());
        }
        if (head.method().equals(HttpMethod.DELETE)) {
            runtime.claims().identity().deleteDepth().ifPresent(depth -> head.headers().set(HeaderNames.DEPTH, depth));
        }
        if (route instanceof RequestRoute.Fenced fenced) {
            checkFence(fenced.claim());
        } else if (route instanceof RequestRoute.FencedUploadStart start) {
            checkedAnswer = CheckedAnswer.recordingUploadId(runtime.uploads(), start.object());
            checkFence(start.claim());
        } else if (route instanceof RequestRoute.FencedUploadStep step) {
            checkUploadOwner(step);
        } else if (route instanceof RequestRoute.DeleteObjects deleteObjects) {
            collectDeleteObjects(head, deleteObjects.bucketPath());
        } else {
            forward(StoreExchange.AfterStore.NOTHING);
        }
    }

    private void checkFence(FenceClaim claim) {
        state = State.CHECKING_FENCE;
        record.fenceAsked(claim);
        runtime.fences().check(claim, ctx.executor()).thenAccept(this::onDecisionInLoop);
    }

    /**
     * A multipart step's upload id must have been created for this object (the store would find
     * another object's upload by the id alone); only then is the fence asked. Nothing is read
     * from the client meanwhile.
     */
    private void checkUploadOwner(RequestRoute.FencedUploadStep step) {
        state = State.CHECKING_FENCE;
        HttpRequest asked = request;
        runtime.uploads().ownerOf(step.uploadId()).whenComplete((owner, failure) -> ctx.executor().execute(() -> {
            if (state != State.CHECKING_FENCE || request != asked) {
                return;
            }
            Optional<Problem> refusal = failure != null
                    ? Optional.of(Problem.of(Outcome.FENCE_UNAVAILABLE, "owner of upload id " + step.uploadId() + " unknown: " + failure))
                    : step.refusal(owner);
            if (refusal.isPresent()) {
                refuse(refusal.get());
            } else {
                checkFence(step.claim());
            }
        }));
    }

    /** Decisions come back on this loop (a held fence's at once, the store's in its batch's task); a timeout's is handed back. */
    private void onDecisionInLoop(FenceDecision decision) {
        if (ctx.executor().inEventLoop()) {
            onDecision(decision);
        } else {
            ctx.executor().execute(() -> onDecision(decision));
        }
    }

    private void onDecision(FenceDecision decision) {
        if (record != null) {
            record.fenceAnswered(decision);
        }
        if (state != State.CHECKING_FENCE) {
            // The client went away meanwhile: nothing was sent, so the outcome is known.
            if (decision instanceof FenceDecision.Admitted admitted) {
                runtime.fences().finished(admitted.claim(), true);
            }
            return;
        }
        if (decision instanceof FenceDecision.Admitted admitted) {
            window = admitted.window();
            forward(outcomeKnown -> runtime.fences().finished(admitted.claim(), outcomeKnown));
        } else {
            refuse(Problem.of(decision));
        }
    }

    /** DeleteObjects names its keys in the body: it is read whole, within a bound, before the fence is asked. */
    private void collectDeleteObjects(HttpRequest head, String bucketPath) {
        DeleteObjectsIntake.Start start = DeleteObjectsIntake.start(head, bucketPath, policy.maxBufferedBody(), ctx.alloc(), runtime.claims());
        if (start instanceof DeleteObjectsIntake.Start.Refused refused) {
            refuse(refused.problem());
            return;
        }
        intake = ((DeleteObjectsIntake.Start.Ready) start).intake();
        state = State.COLLECTING_BODY;
        if (HttpUtil.is100ContinueExpected(head)) {
            // The fence cannot answer before the body is read, so the gateway asks for it now.
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
        read();
    }

    private void onDeleteObjectsContent(HttpContent content) {
        Problem tooLarge = intake.add(content);
        if (tooLarge != null) {
            refuse(tooLarge);
            return;
        }
        if (!intake.complete()) {
            read();
            return;
        }
        ClaimParser.ClaimsParse claims = intake.claims();
        if (claims instanceof ClaimParser.ClaimsParse.Refused refused) {
            refuse(refused.problem());
            return;
        }
        state = State.CHECKING_FENCE;
        FenceBatch.check(((ClaimParser.ClaimsParse.Valid) claims).claims(), claim -> runtime.fences().check(claim, ctx.executor()),
                        decision -> ctx.executor().execute(() -> runtime.metrics().fenceDecision(decision)))
                .thenAccept(result -> ctx.executor().execute(() -> onBatchDecision(result)));
    }

    private void onBatchDecision(FenceBatch.Result result) {
        List<FenceClaim> admitted = result.admitted().stream().map(FenceDecision.Admitted::claim).toList();
        if (state != State.CHECKING_FENCE || !result.allAdmitted()) {
            admitted.forEach(claim -> runtime.fences().finished(claim, true));
            if (state == State.CHECKING_FENCE) {
                refuse(Problem.of(result.refusal()));
            }
            return;
        }
        held = intake.takeBody();
        intake = null;
        window = SendWindow.allOf(result.admitted().stream().map(FenceDecision.Admitted::window).toList());
        forward(outcomeKnown -> admitted.forEach(claim -> runtime.fences().finished(claim, outcomeKnown)));
    }

    /**
     * Relays the request. Unless the client waits for a 100, the first body chunk is read
     * before anything goes to the store, so a malformed one is refused with nothing forwarded.
     */
    private void forward(StoreExchange.AfterStore afterStore) {
        boolean expectContinue = HttpUtil.is100ContinueExpected(request) && intake == null && held == null;
        if (!expectContinue && held == null && !hasNoBody(request)) {
            pendingAfterStore = afterStore;
            state = State.AWAITING_BODY;
            read();
            return;
        }
        state = State.FORWARDING;
        record.storeAsked();
        exchange = new StoreExchange(ctx, request, runtime.upstreamPathPrefix() + request.uri(), expectContinue,
                runtime.storeConnections(), this, afterStore, window);
        if (checkedAnswer != null) {
            exchange.checkAnswer(checkedAnswer);
            checkedAnswer = null;
        }
        if (storeHost != null) {
            exchange.giveBackHost(storeHost);
        }
        exchange.start(runtime.upstreamTimeoutMillis());
    }

    /** Takes ownership of {@code content}: it is relayed, kept or released. */
    private void onContent(HttpContent content) {
        if (content.decoderResult().isFailure() && state != State.CLOSING) {
            // A malformed chunk: the decoder hands an empty last content, which must not end the request at the store.
            content.release();
            abandon(RequestScreen.decoderFailure(content.decoderResult().cause()));
            return;
        }
        switch (state) {
            case FORWARDING -> relay(content);
            case AWAITING_BODY -> {
                held = content;
                StoreExchange.AfterStore afterStore = pendingAfterStore;
                pendingAfterStore = null;
                forward(afterStore);
            }
            case COLLECTING_BODY -> onDeleteObjectsContent(content);
            case DISCARDING_BODY -> {
                content.release();
                if (content instanceof LastHttpContent) {
                    awaitNextRequest();
                } else {
                    read();
                }
            }
            case AWAITING_REQUEST, CHECKING_FENCE, CLOSING -> content.release();
        }
    }

    private void relay(HttpContent content) {
        bodyBytes += content.content().readableBytes();
        if (policy.maxBodySize() > 0 && bodyBytes > policy.maxBodySize()) {
            content.release();
            abandon(Problem.of(Outcome.PAYLOAD_TOO_LARGE, "request body above the limit of " + policy.maxBodySize() + " bytes"));
            return;
        }
        exchange.onClientContent(content);
    }

    /**
     * Gives up on a request mid-body: the store connection is closed before the request ended,
     * so the store never sees it complete, and the client gets the problem if it has had no
     * answer yet, then a close.
     */
    private void abandon(Problem problem) {
        boolean answered = false;
        if (exchange != null) {
            answered = exchange.responseStarted();
            exchange.onClientClosed();
            exchange = null;
        }
        if (answered) {
            closeAfterFlush();
        } else {
            reject(problem);
        }
    }

    @Override
    public void exchangeCompleted(boolean reusable) {
        record.forwarded(exchange.responseStatus());
        exchange = null;
        if (reusable && state == State.FORWARDING) {
            awaitNextRequest();
        } else {
            closeAfterFlush();
        }
    }

    @Override
    public void exchangeFailed(Outcome outcome, String detail) {
        boolean answered = exchange != null && exchange.responseStarted();
        if (answered) {
            record.forwarded(exchange.responseStatus());
        }
        exchange = null;
        if (answered) {
            closeAfterFlush();
        } else {
            refuse(Problem.of(outcome, detail));
        }
    }

    /** Answers a request that is malformed or hostile, then closes: nothing more from this client is trusted. */
    private void reject(Problem problem) {
        answer(problem, true);
    }

    private void refuse(Problem problem) {
        answer(problem, false);
    }

    /**
     * Answers the request here. The connection is kept only when the request carried no body
     * and the client asked to keep it; an unread body would otherwise be parsed as a request.
     * Closed with a body still coming, it lingers ({@link LingeringClose}) unless the request was hostile.
     */
    private void answer(Problem problem, boolean close) {
        answer(problem, close, false);
    }

    /**
     * {@code headComing}: the answer cuts off a head still trickling in, which lingers as a body
     * still coming does: a byte arriving after a plain close would reset the connection and take
     * the answer with it.
     */
    private void answer(Problem problem, boolean close, boolean headComing) {
        (record == null ? runtime.record("UNKNOWN", "/") : record).answered(problem.outcome());
        dropHeldBody();
        boolean bodyUnread = state == State.AWAITING_REQUEST || state == State.CHECKING_FENCE;
        boolean keep = !close && request != null && HttpUtil.isKeepAlive(request)
                && problem.outcome().status() < 500 && state != State.FORWARDING
                && (bodyEnded || bodyUnread && discardable(request));
        state = keep ? State.DISCARDING_BODY : State.CLOSING;
        // A refused request whose body is still coming: its client may be sending it yet, and must still read the answer.
        boolean lingering = !keep && !close && (request != null && !bodyEnded || headComing);
        Replies.problem(ctx, problem, !keep, lingering, errorFormat, request == null ? "/" : request.uri());
        if (keep && bodyEnded) {
            awaitNextRequest();
        } else if (keep) {
            read();
        }
    }

    /**
     * A body the gateway reads and drops after answering, to keep the connection: none, or a
     * small one of declared length that the client is not holding back for a 100. A refused
     * writer that keeps writing then costs no new connection per refusal.
     */
    private static boolean discardable(HttpRequest head) {
        if (HttpUtil.isTransferEncodingChunked(head)) {
            return false;
        }
        long length = HttpUtil.getContentLength(head, 0L);
        return length == 0 || length <= DISCARDABLE_BODY && !HttpUtil.is100ContinueExpected(head);
    }

    private static boolean hasNoBody(HttpRequest head) {
        return !HttpUtil.isTransferEncodingChunked(head) && HttpUtil.getContentLength(head, 0L) == 0L;
    }

    /** Releases body held back from the store, and tells the fence a write that never went out is over. */
    private void dropHeldBody() {
        checkedAnswer = null;
        if (intake != null) {
            intake.release();
            intake = null;
        }
        if (held != null) {
            held.release();
            held = null;
        }
        if (pendingAfterStore != null) {
            pendingAfterStore.ended(true);
            pendingAfterStore = null;
        }
    }

    private void awaitNextRequest() {
        state = State.AWAITING_REQUEST;
        request = null;
        record = null;
        read();
    }

    private void closeAfterFlush() {
        state = State.CLOSING;
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (exchange != null && ctx.channel().isWritable()) {
            exchange.onClientWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof IdleStateEvent) {
            onIdle();
        } else if (event == HeadDeadline.EXPIRED) {
            if (state == State.AWAITING_REQUEST) {
                answer(Problem.of(Outcome.REQUEST_TIMEOUT, "no complete request head within the head timeout"), false, true);
            }
        } else {
            ctx.fireUserEventTriggered(event);
        }
    }

    /** Idle while we wait on the client: a slow or stalled sender is cut off. */
    private void onIdle() {
        switch (state) {
            case AWAITING_REQUEST -> {
                if (quietBetweenRequests.getAsBoolean()) {
                    closeAfterFlush();
                } else {
                    refuse(Problem.of(Outcome.REQUEST_TIMEOUT, "no complete request head within the idle timeout"));
                }
            }
            case FORWARDING -> {
                if (exchange != null && exchange.awaitingClientBody()) {
                    abandon(Problem.of(Outcome.REQUEST_TIMEOUT, "request body stalled"));
                }
            }
            case COLLECTING_BODY, AWAITING_BODY, DISCARDING_BODY -> refuse(Problem.of(Outcome.REQUEST_TIMEOUT, "request body stalled"));
            case CHECKING_FENCE, CLOSING -> { }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSING;
        if (record != null) {
            record.clientClosed();
        }
        dropHeldBody();
        if (exchange != null) {
            exchange.onClientClosed();
            exchange = null;
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException || cause instanceof DecoderException) {
            // The client's doing: a reset, or input the codec refused (such as pipelining past its depth limit).
            log.debug("client connection {} closed: {}", ctx.channel().remoteAddress(), cause.toString());
        } else {
            log.warn("client connection {} closed on an unexpected error, in state {}", ctx.channel().remoteAddress(), state, cause);
        }
        ctx.close();
    }
}
