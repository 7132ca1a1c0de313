package dev.fencegate.proxy;

import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.WriteClassifier;
import dev.fencegate.http.ClaimParser;
import dev.fencegate.http.HeaderNames;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;

/**
 * The client-facing end of a connection. Reads one request head, pauses, has a write judged by
 * the fence, then relays it to the store or answers it itself. Auto-read is off: the next
 * message is read only when this handler asks for it, so nothing is read while the fence or
 * the store is busy.
 */
final class ClientRequestReceiver extends ChannelInboundHandlerAdapter implements StoreExchange.Listener {

    private enum State { AWAITING_REQUEST, CHECKING_FENCE, FORWARDING, DISCARDING_BODY, CLOSING }

    private final GatewayRuntime runtime;
    private ChannelHandlerContext ctx;
    private State state = State.AWAITING_REQUEST;
    private HttpRequest request;
    private StoreExchange exchange;
    /** A read() asked for and not yet answered by a message. */
    private boolean readWanted;

    ClientRequestReceiver(GatewayRuntime runtime) {
        this.runtime = runtime;
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

    @Override
    public void readRequestBody() {
        read();
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
        if (msg instanceof HttpContent content) {
            onContent(content);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onRequest(HttpRequest head) {
        if (state != State.AWAITING_REQUEST) {
            refuse(Problem.of(Outcome.BAD_REQUEST, "a request arrived before the previous one was answered"));
            return;
        }
        request = head;
        if (head.decoderResult().isFailure()) {
            refuse(decoderProblem(head.decoderResult().cause()));
            return;
        }
        Problem screened = RequestScreen.check(head);
        if (screened != null) {
            refuse(screened);
            return;
        }
        switch (WriteClassifier.classify(head.method().name())) {
            case REFUSED -> refuse(Problem.of(Outcome.METHOD_NOT_ALLOWED, "method " + head.method() + " is not served"));
            case READ -> forward(StoreExchange.AfterStore.NOTHING);
            case WRITE -> checkFence(head);
        }
    }

    private void checkFence(HttpRequest head) {
        ClaimParser.ClaimParse parsed = ClaimParser.parse(head.uri(),
                head.headers().getAll(HeaderNames.FENCING_TOKEN), head.headers().getAll(HeaderNames.FENCING_HOLDER));
        if (parsed instanceof ClaimParser.ClaimParse.Refused refused) {
            refuse(refused.problem());
            return;
        }
        state = State.CHECKING_FENCE;
        runtime.fences().check(((ClaimParser.ClaimParse.Valid) parsed).claim())
                .thenAccept(decision -> ctx.executor().execute(() -> onDecision(decision)));
    }

    private void onDecision(FenceDecision decision) {
        runtime.metrics().fenceDecision(decision);
        if (state != State.CHECKING_FENCE) {
            return; // the client went away meanwhile
        }
        if (decision instanceof FenceDecision.Admitted admitted) {
            forward(outcomeKnown -> runtime.fences().finished(admitted.claim(), outcomeKnown));
        } else {
            refuse(Problem.of(decision));
        }
    }

    private void forward(StoreExchange.AfterStore afterStore) {
        state = State.FORWARDING;
        boolean expectContinue = HttpUtil.is100ContinueExpected(request);
        exchange = new StoreExchange(ctx, request, runtime.upstreamPathPrefix() + request.uri(), expectContinue,
                runtime.storeConnections(), this, afterStore);
        exchange.start(runtime.upstreamTimeoutMillis());
    }

    /** Takes ownership of {@code content}: it is relayed or released. */
    private void onContent(HttpContent content) {
        switch (state) {
            case FORWARDING -> exchange.onClientContent(content);
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

    @Override
    public void exchangeCompleted(boolean reusable) {
        runtime.metrics().forwarded(request.method().name());
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
        exchange = null;
        if (answered) {
            closeAfterFlush();
        } else {
            refuse(Problem.of(outcome, detail));
        }
    }

    /**
     * Answers the request here. The connection is kept only when the request carried no body
     * and the client asked to keep it; an unread body would otherwise be parsed as a request.
     */
    private void refuse(Problem problem) {
        runtime.metrics().refused(request == null ? "UNKNOWN" : request.method().name(), problem.outcome());
        boolean keep = request != null && !request.decoderResult().isFailure() && HttpUtil.isKeepAlive(request)
                && hasNoBody(request) && problem.outcome().status() < 500 && state != State.FORWARDING;
        state = keep ? State.DISCARDING_BODY : State.CLOSING;
        Replies.problem(ctx, problem, !keep);
        if (keep) {
            read();
        }
    }

    private static boolean hasNoBody(HttpRequest head) {
        return !HttpUtil.isTransferEncodingChunked(head) && HttpUtil.getContentLength(head, 0L) == 0L;
    }

    private void awaitNextRequest() {
        state = State.AWAITING_REQUEST;
        request = null;
        read();
    }

    private void closeAfterFlush() {
        state = State.CLOSING;
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    private static Problem decoderProblem(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return Problem.of(Outcome.URI_TOO_LONG, "request line longer than the configured limit");
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return Problem.of(Outcome.HEADERS_TOO_LARGE, "request headers larger than the configured limit");
        }
        return Problem.of(Outcome.BAD_REQUEST, "request could not be parsed: " + cause.getMessage());
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
        } else {
            ctx.fireUserEventTriggered(event);
        }
    }

    /** Idle while we wait on the client: a slow or stalled sender is cut off. */
    private void onIdle() {
        switch (state) {
            case AWAITING_REQUEST -> ctx.close();
            case FORWARDING -> {
                if (exchange != null && exchange.awaitingClientBody()) {
                    exchange.onClientClosed();
                    exchange = null;
                    refuse(Problem.of(Outcome.REQUEST_TIMEOUT, "request body stalled"));
                }
            }
            case DISCARDING_BODY -> refuse(Problem.of(Outcome.REQUEST_TIMEOUT, "request body stalled"));
            case CHECKING_FENCE, CLOSING -> { }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSING;
        if (exchange != null) {
            exchange.onClientClosed();
            exchange = null;
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
