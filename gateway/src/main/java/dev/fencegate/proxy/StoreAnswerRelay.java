package dev.fencegate.proxy;

import dev.fencegate.fence.SendWindow;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The answer half of a {@link StoreExchange}: relays what the store sends to the client, reading
 * the next part from the store only when the client can take it, or keeps the answer whole until
 * its check passes. Runs on the client's event loop; as a task it is the exchange's deadline.
 */
final class StoreAnswerRelay implements Runnable {

    private final StoreExchange exchange;
    private final ChannelHandlerContext client;
    private final HttpRequest request;
    private final boolean keepClient;
    private final SendWindow window;
    private Channel store;
    private ScheduledFuture<?> deadline;
    private long timeoutNanos;
    private boolean answerUnderWay;
    /** The client went while the store's answer was coming: the rest is read and dropped, to learn when the store is done. */
    private boolean draining;
    /** When the store last sent part of its answer, by {@link System#nanoTime()}, once it is under way. */
    private long answerSeenNanos;
    private boolean responseStarted;
    private int responseStatus;
    private boolean responseComplete;
    private boolean storeReusable = true;
    private boolean storeReadPending;
    /**
     * An answer of no declared length to an HTTP/1.0 client, which has no chunked coding: its body
     * ends when the connection closes.
     */
    private boolean answerEndsWithConnection;
    /** A 1xx head was dropped; the codec follows it with an empty end of its own, dropped too. */
    private boolean skippingInformational;
    /** Set where the request went to the store under the store's own host: its URLs in the answer get the client's back. */
    private StoreHost storeHost;
    /** Set when the store's answer must be checked whole before the client sees any of it. */
    private CheckedAnswer checkedAnswer;

    StoreAnswerRelay(StoreExchange exchange, ChannelHandlerContext client, HttpRequest request, boolean keepClient,
                     SendWindow window) {
        this.exchange = exchange;
        this.client = client;
        this.request = request;
        this.keepClient = keepClient;
        this.window = window;
    }

    void giveBackHost(StoreHost host) {
        this.storeHost = host;
    }

    void checkAnswer(CheckedAnswer answer) {
        this.checkedAnswer = answer;
    }

    void startDeadline(long timeoutMillis) {
        timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        deadline = client.executor().schedule(this, timeoutMillis, TimeUnit.MILLISECONDS);
    }

    void connected(Channel channel) {
        store = channel;
    }

    void onClientWritable() {
        if (storeReadPending && !exchange.finished()) {
            storeReadPending = false;
            store.read();
        }
    }

    void onStoreMessage(Object msg) {
        if (exchange.finished()) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (responseComplete) {
            // The answer ended and is kept under its check: anything more is a second answer to one
            // request (a store that took the rest of a body for a request of its own). None of it
            // goes to the client, and the connection carries no other request.
            storeReusable = false;
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpObject object && object.decoderResult().isFailure()) {
            // Not HTTP past this point: the answer may not end where it seems to, nor the next one begin.
            String why = String.valueOf(object.decoderResult().cause().getMessage());
            ReferenceCountUtil.release(msg);
            exchange.fail(Outcome.STORE_ANSWER_UNREADABLE, "store answer could not be read as HTTP: " + why);
            return;
        }
        if (skippingInformational) {
            skippingInformational = false;
            if (msg instanceof LastHttpContent && !(msg instanceof HttpResponse)) {
                ReferenceCountUtil.release(msg);
                store.read();
                return;
            }
        }
        // The answer is under way: the store is still at the request (S3 sends a CompleteMultipartUpload's
        // 200 at once, then blanks until the object is built, which can take minutes), so the deadline counts
        // from its latest part, and the write stays in flight, its registration renewed, until the answer ends.
        answerUnderWay = true;
        answerSeenNanos = System.nanoTime();
        if (msg instanceof HttpResponse response) {
            if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
                // 1xx from the store is not passed on: the gateway owns the client's 100-continue.
                ReferenceCountUtil.release(msg);
                if (response.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
                    exchange.fail(Outcome.STORE_ANSWER_UNREADABLE, "store switched protocols, which was not asked for");
                    return;
                }
                skippingInformational = true;
                store.read();
                return;
            }
            storeReusable = HttpUtil.isKeepAlive(response) && StoreAnswers.endsOnItsOwn(request, response)
                    && !StoreAnswers.mayHaveLeftBodyUnread(request, response);
            HopByHop.strip(response.headers());
            if (storeHost != null) {
                storeHost.toClient(response.headers());
            }
            if (!HttpUtil.isContentLengthSet(response)) {
                answerEndsWithConnection = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
                if (answerEndsWithConnection) {
                    HttpUtil.setTransferEncodingChunked(response, false);
                } else if (!HttpUtil.isTransferEncodingChunked(response)) {
                    HttpUtil.setTransferEncodingChunked(response, true);
                }
            }
            responseStarted = checkedAnswer == null;
            responseStatus = response.status().code();
        }
        boolean last = msg instanceof LastHttpContent;
        if (last) {
            responseComplete = true;
        }
        if (msg instanceof HttpResponse response && (!keepClient || !exchange.requestComplete() || answerEndsWithConnection)) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        if (draining) {
            ReferenceCountUtil.release(msg);
            if (last) {
                exchange.drained(true);
            } else {
                store.read();
            }
            return;
        }
        if (checkedAnswer != null) {
            keepAnswer((HttpObject) msg, last);
        } else if (last) {
            client.writeAndFlush(msg);
            // If the store answered before the body ended, the rest of it has nowhere to go:
            // complete() then closes both connections.
            exchange.complete();
        } else {
            // Flushed when the store's read batch ends, so a head and its body go out together.
            client.write(msg);
            if (client.channel().isWritable()) {
                store.read();
            } else {
                client.flush();
                storeReadPending = true;
            }
        }
    }

    private void keepAnswer(HttpObject msg, boolean last) {
        if (!checkedAnswer.add(msg)) {
            checkedAnswer = null;
            exchange.fail(Outcome.STORE_ANSWER_UNREADABLE, "store answer larger than the gateway reads to check it");
        } else if (!last) {
            store.read();
        } else {
            checkedAnswer.check(responseStatus).whenComplete((refusal, failure) ->
                    client.executor().execute(() -> onAnswerChecked(refusal, failure)));
        }
    }

    private void onAnswerChecked(Optional<Problem> refusal, Throwable failure) {
        if (exchange.finished()) {
            return;
        }
        if (failure != null || refusal.isPresent()) {
            Problem problem = failure != null ? Problem.of(Outcome.FENCE_UNAVAILABLE, "store answer not checked: " + failure)
                    : refusal.get();
            exchange.fail(problem.outcome(), problem.detail());
            return;
        }
        responseStarted = true;
        CheckedAnswer answer = checkedAnswer;
        checkedAnswer = null;
        answer.writeTo(client);
        exchange.complete();
    }

    /** The store's read batch ended: what it brought goes to the client. */
    void onStoreReadComplete() {
        if (!exchange.finished()) {
            client.flush();
        }
    }

    /** The deadline: the store did not answer within the upstream timeout, or went silent that long within its answer. */
    @Override
    public void run() {
        if (exchange.finished()) {
            return;
        }
        long silentNanos = System.nanoTime() - answerSeenNanos;
        if (answerUnderWay && silentNanos < timeoutNanos) {
            deadline = client.executor().schedule(this, timeoutNanos - silentNanos, TimeUnit.NANOSECONDS);
            return;
        }
        if (draining) {
            exchange.drained(false);
            return;
        }
        if (!exchange.requestComplete() && window.closed()) {
            // Due together with the window's end (this process woke from a pause, or the client sent
            // slowly), the timer ran first: the store was waiting for the rest, which the gateway cuts.
            exchange.expire();
            return;
        }
        exchange.fail(Outcome.STORE_TIMEOUT, "store did not answer within the upstream timeout");
    }

    /** Whether the store has begun its answer (an interim one included). */
    boolean answerUnderWay() {
        return answerUnderWay;
    }

    /** The client went: the rest of the answer is read from the store and dropped, the deadline counting as before. */
    void drain() {
        draining = true;
        store.read();
    }

    void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
        }
    }

    void releaseCheckedAnswer() {
        if (checkedAnswer != null) {
            checkedAnswer.release();
            checkedAnswer = null;
        }
    }

    /** The store's status code, once its answer started; 0 before. */
    int responseStatus() {
        return responseStatus;
    }

    boolean responseStarted() {
        return responseStarted;
    }

    /** The store's answer has ended (it may still be under its check). */
    boolean responseComplete() {
        return responseComplete;
    }

    /** The store connection may carry another exchange, as far as its answer tells. */
    boolean storeReusable() {
        return storeReusable;
    }

    /** The client learns where the answer ends only from the connection closing. */
    boolean endsWithConnection() {
        return answerEndsWithConnection;
    }
}
