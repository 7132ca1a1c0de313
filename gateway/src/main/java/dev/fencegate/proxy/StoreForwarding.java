package dev.fencegate.proxy;

import dev.fencegate.fence.SendWindow;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Relays the request a {@link ClientRequestReceiver} holds to the store through a
 * {@link StoreExchange}: waits for its first body chunk, keeps the body within the limit, and
 * hands the connection back to the receiver as the exchange ends. Runs on the client's event loop.
 */
final class StoreForwarding implements StoreExchange.Listener {

    private final GatewayRuntime runtime;
    private final EdgePolicy policy;
    private final ChannelHandlerContext ctx;
    private final ClientRequestReceiver receiver;
    private StoreExchange exchange;
    /** Body read before the exchange started (a first chunk, or a whole DeleteObjects body): relayed first. */
    private HttpContent held;
    /** What to tell the fence when an admitted write waiting for its first body chunk ends. */
    private StoreExchange.AfterStore pendingAfterStore;
    /** The window the fence admitted the current write within; waiting for its body counts against it. */
    private SendWindow window = SendWindow.OPEN;
    /** Body bytes relayed for the current request, against the body limit. */
    private long bodyBytes;
    /** For CreateMultipartUpload: the store's answer, kept until its upload id is recorded. */
    private CheckedAnswer checkedAnswer;
    /** The request's Host, swapped for the store's own, where the store gets that (see {@link StoreHost}). */
    private StoreHost storeHost;

    StoreForwarding(GatewayRuntime runtime, EdgePolicy policy, ChannelHandlerContext ctx, ClientRequestReceiver receiver) {
        this.runtime = runtime;
        this.policy = policy;
        this.ctx = ctx;
        this.receiver = receiver;
    }

    /** A new request arrived: nothing of it is admitted or relayed yet. */
    void newRequest() {
        window = SendWindow.OPEN;
        bodyBytes = 0;
    }

    /** The store's own URLs in the answer get {@code host}'s client host back; null for none. */
    void giveBackHost(StoreHost host) {
        storeHost = host;
    }

    /** The store's answer is kept from the client until {@code answer}'s check passes. */
    void checkAnswer(CheckedAnswer answer) {
        checkedAnswer = answer;
    }

    /** A whole body read before the fence was asked (DeleteObjects): relayed first. */
    void hold(HttpContent body) {
        held = body;
    }

    /** The fence admitted the request within {@code window}: it goes to the store. */
    void admitted(SendWindow window, StoreExchange.AfterStore afterStore) {
        this.window = window;
        forward(afterStore);
    }

    /**
     * Relays the request. Unless the client waits for a 100, the first body chunk is read
     * before anything goes to the store, so a malformed one is refused with nothing forwarded.
     */
    void forward(StoreExchange.AfterStore afterStore) {
        HttpRequest request = receiver.request();
        boolean expectContinue = HttpUtil.is100ContinueExpected(request) && !receiver.collectingDeleteObjects() && held == null;
        if (!expectContinue && held == null && !RequestBodies.none(request)) {
            pendingAfterStore = afterStore;
            receiver.enter(ClientRequestReceiver.State.AWAITING_BODY);
            receiver.read();
            return;
        }
        receiver.enter(ClientRequestReceiver.State.FORWARDING);
        receiver.record().storeAsked();
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

    /** The first body chunk of a request waiting for it: the request goes out with it. */
    void onFirstContent(HttpContent content) {
        held = content;
        StoreExchange.AfterStore afterStore = pendingAfterStore;
        pendingAfterStore = null;
        forward(afterStore);
    }

    /** The exchange wants more body: what was held back goes first, then the client is read. */
    @Override
    public void readRequestBody() {
        if (held != null) {
            HttpContent first = held;
            held = null;
            relay(first);
        } else {
            receiver.read();
        }
    }

    void relay(HttpContent content) {
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
    void abandon(Problem problem) {
        boolean answered = false;
        if (exchange != null) {
            answered = exchange.responseStarted();
            exchange.onClientClosed();
            exchange = null;
        }
        if (answered) {
            receiver.closeAfterFlush();
        } else {
            receiver.reject(problem);
        }
    }

    @Override
    public void exchangeCompleted(boolean reusable) {
        receiver.record().forwarded(exchange.responseStatus());
        exchange = null;
        if (reusable && receiver.in(ClientRequestReceiver.State.FORWARDING)) {
            receiver.awaitNextRequest();
        } else {
            receiver.closeAfterFlush();
        }
    }

    @Override
    public void exchangeFailed(Outcome outcome, String detail) {
        boolean answered = exchange != null && exchange.responseStarted();
        if (answered) {
            receiver.record().forwarded(exchange.responseStatus());
        }
        exchange = null;
        if (answered) {
            receiver.closeAfterFlush();
        } else {
            receiver.refuse(Problem.of(outcome, detail));
        }
    }

    void onClientWritable() {
        if (exchange != null && ctx.channel().isWritable()) {
            exchange.onClientWritable();
        }
    }

    /** Idle while forwarding: a client that stopped sending its body is cut off. */
    void onIdle() {
        if (exchange != null && exchange.awaitingClientBody()) {
            abandon(Problem.of(Outcome.REQUEST_TIMEOUT, "request body stalled"));
        }
    }

    /** Releases body held back from the store, and tells the fence a write that never went out is over. */
    void dropHeldBody() {
        checkedAnswer = null;
        if (held != null) {
            held.release();
            held = null;
        }
        if (pendingAfterStore != null) {
            pendingAfterStore.ended(true);
            pendingAfterStore = null;
        }
    }

    void onClientClosed() {
        if (exchange != null) {
            exchange.onClientClosed();
            exchange = null;
        }
    }
}
