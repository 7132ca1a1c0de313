package dev.fencegate.proxy;

import dev.fencegate.http.ErrorFormat;
import dev.fencegate.http.HeaderNames;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client-facing end of a connection. Reads one request head, pauses, has a write judged by
 * the fence ({@link FenceQuestions}), then relays it to the store ({@link StoreForwarding}) or
 * answers it itself. Auto-read is off: the next message is read only when this handler asks for
 * it, so nothing is read while the fence or the store is busy, and pipelined requests wait their
 * turn in the socket.
 */
final class ClientRequestReceiver extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ClientRequestReceiver.class);

    enum State {
        AWAITING_REQUEST, COLLECTING_BODY, CHECKING_FENCE, AWAITING_BODY, FORWARDING, DISCARDING_BODY, CLOSING
    }

    private final GatewayRuntime runtime;
    private final EdgePolicy policy;
    /** Whether nothing of a next request has arrived on this connection. */
    private final BooleanSupplier quietBetweenRequests;
    private ChannelHandlerContext ctx;
    private FenceQuestions fence;
    private StoreForwarding forwarding;
    private State state = State.AWAITING_REQUEST;
    private HttpRequest request;
    private RequestRecord record;
    private ErrorFormat errorFormat = ErrorFormat.PROBLEM_JSON;
    /** A read() asked for and not yet answered by a message. */
    private boolean readWanted;
    /** A message is being handled: a read() asked for meanwhile waits until it returns ({@link #channelRead}). */
    private boolean delivering;
    /** A read() was asked for while a message was being handled, and is still to be passed on. */
    private boolean readDeferred;
    /** The current request's last body chunk has been read (relayed, held or dropped). */
    private boolean bodyEnded;

    ClientRequestReceiver(GatewayRuntime runtime, EdgePolicy policy, BooleanSupplier quietBetweenRequests) {
        this.runtime = runtime;
        this.policy = policy;
        this.quietBetweenRequests = quietBetweenRequests;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.forwarding = new StoreForwarding(runtime, policy, ctx, this);
        this.fence = new FenceQuestions(runtime, policy, ctx, this, forwarding);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        read();
        ctx.fireChannelActive();
    }

    /** Every read goes through here, so that an unanswered one can be asked for again. */
    void read() {
        readWanted = true;
        passReadOn();
    }

    /**
     * FlowControlHandler hands a message it holds to this handler from inside read(); asked for
     * while one is being handled, the next would be handled a call deeper, and a body of many
     * small chunks that arrived in one read would overflow the stack. The outermost delivery
     * passes it on once the message in hand is done with.
     */
    private void passReadOn() {
        if (delivering) {
            readDeferred = true;
        } else {
            ctx.read();
        }
    }

    /**
     * FlowControlHandler counts a read() as answered once a read cycle completes, even if the
     * cycle brought nothing for this handler; ask again, or the connection stalls.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (readWanted) {
            passReadOn();
        }
        ctx.fireChannelReadComplete();
    }

    /**
     * Handles {@code msg}, then, when this is the outermost delivery, passes on each read asked
     * for meanwhile: the messages it brings are handled one after another, each in a call
     * nested one deep, however many are waiting.
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (delivering) {
            deliver(msg);
            return;
        }
        delivering = true;
        try {
            deliver(msg);
            while (readDeferred) {
                readDeferred = false;
                ctx.read();
            }
        } finally {
            delivering = false;
            readDeferred = false;
        }
    }

    private void deliver(Object msg) {
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
        forwarding.newRequest();
        record = runtime.record(head.method().name(), head.uri());
        bodyEnded = false;
        errorFormat = ErrorFormat.of(head.headers().get(HttpHeaderNames.AUTHORIZATION),
                head.headers().get("x-amz-content-sha256"), head.headers().get(ErrorFormat.SDK_INVOCATION_ID), head.uri());
        RequestRoute route = RequestRoute.of(head, policy, runtime.claims());
        if (route instanceof RequestRoute.Answer answer) {
            answer(answer.problem(), answer.close());
            return;
        }
        ForwardedHeaders.dropUnlessTrusted(head.headers(), ctx.channel().remoteAddress(), policy.trustedProxies());
        StoreHost storeHost = runtime.storeHost().map(store -> new StoreHost(store, head.headers().get(HttpHeaderNames.HOST))).orElse(null);
        forwarding.giveBackHost(storeHost);
        if (storeHost != null) {
            storeHost.toStore(head.headers());
        }
        if (head.method().equals(HttpMethod.DELETE)) {
            runtime.claims().identity().deleteDepth().ifPresent(depth -> head.headers().set(HeaderNames.DEPTH, depth));
        }
        if (route instanceof RequestRoute.Fenced fenced && head.method().equals(HttpMethod.DELETE)
                && runtime.claims().identity().asksWhetherADeleteNamesACollection()) {
            // The store may be a WebDAV server that ignores the Depth just set.
            fence.checkNotACollection(fenced.claim());
        } else if (route instanceof RequestRoute.Fenced fenced) {
            fence.check(fenced.claim());
        } else if (route instanceof RequestRoute.FencedUploadStart start) {
            forwarding.checkAnswer(CheckedAnswer.recordingUploadId(runtime.uploads(), start.object()));
            fence.check(start.claim());
        } else if (route instanceof RequestRoute.FencedUploadStep step) {
            fence.checkUploadOwner(step);
        } else if (route instanceof RequestRoute.DeleteObjects deleteObjects) {
            fence.collectDeleteObjects(head, deleteObjects.bucketPath());
        } else {
            forwarding.forward(StoreExchange.AfterStore.NOTHING);
        }
    }

    /** Takes ownership of {@code content}: it is relayed, kept or released. */
    private void onContent(HttpContent content) {
        if (content.decoderResult().isFailure() && state != State.CLOSING) {
            // A malformed chunk: the decoder hands an empty last content, which must not end the request at the store.
            content.release();
            forwarding.abandon(RequestScreen.decoderFailure(content.decoderResult().cause()));
            return;
        }
        switch (state) {
            case FORWARDING -> forwarding.relay(content);
            case AWAITING_BODY -> forwarding.onFirstContent(content);
            case COLLECTING_BODY -> fence.onDeleteObjectsContent(content);
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

    /** Answers a request that is malformed or hostile, then closes: nothing more from this client is trusted. */
    void reject(Problem problem) {
        answer(problem, true);
    }

    void refuse(Problem problem) {
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
                && (bodyEnded || bodyUnread && RequestBodies.discardable(request));
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

    /** Releases body held back from the store, and tells the fence a write that never went out is over. */
    private void dropHeldBody() {
        fence.dropBody();
        forwarding.dropHeldBody();
    }

    void awaitNextRequest() {
        state = State.AWAITING_REQUEST;
        request = null;
        record = null;
        read();
    }

    void closeAfterFlush() {
        state = State.CLOSING;
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    void enter(State next) {
        state = next;
    }

    boolean in(State current) {
        return state == current;
    }

    /** The request being handled; null between requests. */
    HttpRequest request() {
        return request;
    }

    /** The current request's record; null between requests. */
    RequestRecord record() {
        return record;
    }

    /** Whether a DeleteObjects body is being read before the fence is asked. */
    boolean collectingDeleteObjects() {
        return fence.collecting();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        forwarding.onClientWritable();
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
            case FORWARDING -> forwarding.onIdle();
            case COLLECTING_BODY, AWAITING_BODY -> refuse(Problem.of(Outcome.REQUEST_TIMEOUT, "request body stalled"));
            // Answered already: a second answer would be read as the next request's.
            case DISCARDING_BODY -> closeAfterFlush();
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
        fence.onClientClosed();
        forwarding.onClientClosed();
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
