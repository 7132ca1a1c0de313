package dev.fencegate.proxy;

import dev.fencegate.fence.SendWindow;
import dev.fencegate.http.Outcome;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;

/**
 * One request relayed to the store and its answer relayed back. Runs entirely on the client's
 * event loop. Both directions stream: the next chunk is read from one side only when the other
 * side can take it, so memory stays bounded whatever the body size. The request goes out through
 * a {@link StoreRequestSender}, the answer comes back through a {@link StoreAnswerRelay}; this
 * class starts the exchange and ends it once.
 */
final class StoreExchange implements StoreListener {

    /** How the exchange ended, for the client-facing side to act on. */
    interface Listener {
        void exchangeCompleted(boolean reusable);

        void exchangeFailed(Outcome outcome, String detail);

        /** Asks for the next chunk of the request body. */
        void readRequestBody();
    }

    private final ChannelHandlerContext client;
    private final boolean keepClient;
    private final StoreConnections connections;
    private final Listener listener;
    private final AfterStore afterStore;
    private final SendWindow window;
    private final StoreRequestSender sender;
    private final StoreAnswerRelay answer;
    private Channel store;
    private boolean finished;
    /** The client went with the store's answer under way; the exchange ends when the answer does. */
    private boolean draining;

    /** Told once when the exchange ends, whether the store's outcome is known. */
    interface AfterStore {
        AfterStore NOTHING = outcomeKnown -> { };

        void ended(boolean outcomeKnown);
    }

    /** @param window what the fence admitted the write within: nothing goes to the store once it has closed */
    StoreExchange(ChannelHandlerContext client, HttpRequest request, String target, boolean expectContinue,
                  StoreConnections connections, Listener listener, AfterStore afterStore, SendWindow window) {
        this.client = client;
        this.keepClient = HttpUtil.isKeepAlive(request);
        this.connections = connections;
        this.listener = listener;
        this.afterStore = afterStore;
        this.window = window;
        this.sender = new StoreRequestSender(this, client, request, target, expectContinue, window, listener);
        this.answer = new StoreAnswerRelay(this, client, request, keepClient, window);
    }

    /** The store's own URLs in the answer get the client's host back. Call before {@link #start}. */
    void giveBackHost(StoreHost host) {
        answer.giveBackHost(host);
    }

    /** The answer is kept from the client until {@code checked}'s check passes. Call before {@link #start}. */
    void checkAnswer(CheckedAnswer checked) {
        answer.checkAnswer(checked);
    }

    void start(long timeoutMillis) {
        if (window.closed()) {
            // Already past it (the body came late, or this process paused): no store connection is even opened.
            expire();
            return;
        }
        answer.startDeadline(timeoutMillis);
        connections.acquire(client.channel().eventLoop()).addListener(sender);
    }

    /** The store connection is there: what the store sends comes to this exchange. */
    void connected(Channel channel) {
        store = channel;
        answer.connected(channel);
        store.pipeline().get(StoreResponseReceiver.class).bind(this);
    }

    void onClientContent(HttpContent content) {
        sender.onClientContent(content);
    }

    @Override
    public void onStoreWritable() {
        sender.onStoreWritable();
    }

    void onClientWritable() {
        answer.onClientWritable();
    }

    @Override
    public void onStoreMessage(Object msg) {
        answer.onStoreMessage(msg);
    }

    /** The store's read batch ended: what it brought goes to the client. */
    @Override
    public void onStoreReadComplete() {
        answer.onStoreReadComplete();
    }

    @Override
    public void onStoreClosed(Throwable cause) {
        // A whole answer kept for its check needs the connection no more.
        if (finished || answer.responseComplete()) {
            return;
        }
        if (draining) {
            drained(false);
            return;
        }
        String detail = cause == null ? "store closed the connection" : "store connection failed: " + cause.getMessage();
        fail(Outcome.STORE_UNREACHABLE, detail);
    }

    void onClientClosed() {
        if (!finished && afterStore != AfterStore.NOTHING && answer.answerUnderWay() && !answer.responseComplete()
                && sender.sentWhole() && store != null && store.isActive()) {
            // A write the store has whole and is still answering: it may be building it
            // (S3 finishes a CompleteMultipartUpload whether or not the connection is there). Reset now, the
            // outcome would be unknown for one timeout only; read on instead, and the write is over when the
            // store says so, or has been silent for the timeout.
            draining = true;
            sender.releaseHeld();
            answer.releaseCheckedAnswer();
            answer.drain();
            return;
        }
        if (!finished) {
            finished = true;
            answer.releaseCheckedAnswer();
            sender.releaseHeld();
            afterStore.ended(sender.notAppliedIfCutNow());
            answer.cancelDeadline();
            if (store != null) {
                reset(store);
            }
        }
    }

    /** True while the body is being relayed and the gateway is waiting on the client for more. */
    boolean awaitingClientBody() {
        return !finished && sender.awaitingClientBody();
    }

    /** The store's status code, once its answer started; 0 before. */
    int responseStatus() {
        return answer.responseStatus();
    }

    boolean responseStarted() {
        return answer.responseStarted();
    }

    boolean finished() {
        return finished;
    }

    /** Ended, or answered (its answer may still be under its check): request body has nowhere to go. */
    boolean answeredOrOver() {
        return finished || answer.responseComplete();
    }

    boolean requestComplete() {
        return sender.requestComplete();
    }

    /** The request's end was written: with the answer whole too, the exchange is complete. */
    void requestEnded() {
        if (answer.responseComplete()) {
            complete();
        }
    }

    /** See {@link StoreRequestSender#expire}. */
    void expire() {
        sender.expire();
    }

    void complete() {
        finished = true;
        sender.releaseHeld();
        answer.releaseCheckedAnswer();
        afterStore.ended(true);
        answer.cancelDeadline();
        unbind(store);
        StoreCodec codec = store.pipeline().get(StoreCodec.class);
        if (answer.storeReusable() && sender.sentWhole() && codec != null && !codec.holdsUnusedBytes()) {
            connections.release(store);
        } else if (sender.sentWhole()) {
            store.close();
        } else {
            StoreTls.closeAtOnce(store);
        }
        listener.exchangeCompleted(sender.requestComplete() && keepClient && !answer.endsWithConnection());
    }

    /**
     * The answer to a request whose client went has ended ({@code outcomeKnown}), or gone silent
     * for the timeout, or lost its connection: the store is done with the write, or may still apply it.
     */
    void drained(boolean outcomeKnown) {
        if (finished) {
            return;
        }
        finished = true;
        afterStore.ended(outcomeKnown);
        answer.cancelDeadline();
        unbind(store);
        if (outcomeKnown) {
            store.close();
        } else {
            reset(store);
        }
    }

    /** A failure after bytes went to the store leaves its outcome unknown: it may still apply them. */
    void fail(Outcome outcome, String detail) {
        fail(outcome, detail, !sender.sentToStore());
    }

    void fail(Outcome outcome, String detail, boolean outcomeKnown) {
        if (draining) {
            // Nobody to answer: the client went.
            drained(false);
            return;
        }
        finished = true;
        answer.releaseCheckedAnswer();
        sender.releaseHeld();
        afterStore.ended(outcomeKnown);
        answer.cancelDeadline();
        if (store != null) {
            unbind(store);
            reset(store);
        }
        listener.exchangeFailed(outcome, detail);
    }

    /** The connection carries no request of this exchange any more; its handlers are gone once it closed. */
    private static void unbind(Channel store) {
        StoreResponseReceiver receiver = store.pipeline().get(StoreResponseReceiver.class);
        if (receiver != null) {
            receiver.unbind();
        }
        SocketGate gate = store.pipeline().get(SocketGate.class);
        if (gate != null) {
            gate.unbind();
        }
    }

    /**
     * Closes a store connection whose request the gateway gave up on with a reset, not a FIN: a
     * close would still send whatever the kernel holds of the request (megabytes, on a slow link),
     * and the store could receive it whole and apply it after the hold for an unknown outcome ended
     * and a higher token went ahead. Bytes already on the wire are the store's, as any sent.
     */
    private static void reset(Channel store) {
        if (store.isActive()) {
            try {
                store.config().setOption(ChannelOption.SO_LINGER, 0);
            } catch (ChannelException e) {
                // The socket went meanwhile: nothing of it is left to send.
            }
        }
        StoreTls.closeAtOnce(store);
    }
}
