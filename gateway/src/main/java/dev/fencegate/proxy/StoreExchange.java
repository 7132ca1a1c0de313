package dev.fencegate.proxy;

import dev.fencegate.fence.SendWindow;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One request relayed to the store and its answer relayed back. Runs entirely on the client's
 * event loop. Both directions stream: the next chunk is read from one side only when the other
 * side can take it, so memory stays bounded whatever the body size.
 */
final class StoreExchange {

    /** How the exchange ended, for the client-facing side to act on. */
    interface Listener {
        void exchangeCompleted(boolean reusable);

        void exchangeFailed(Outcome outcome, String detail);

        /** Asks for the next chunk of the request body. */
        void readRequestBody();
    }

    private final ChannelHandlerContext client;
    private final HttpRequest request;
    private final String target;
    private final boolean expectContinue;
    private final boolean keepClient;
    private final StoreConnections connections;
    private final Listener listener;
    private final AfterStore afterStore;
    private final SendWindow window;
    /**
     * The body is aws-chunked: a store that decodes it (S3Proxy) applies the object once it has read
     * the data the request declares, before the request's end (and may take a declared length of 0
     * as whole on the head), so cutting the request short once anything went out does not keep it
     * from being applied.
     */
    private final boolean appliedBeforeItsEnd;
    /** Where an aws-chunked body's data is whole; null for any other body. */
    private final AwsChunkedData awsData;
    private Channel store;
    private boolean sentToStore;
    private ScheduledFuture<?> deadline;
    private boolean requestComplete;
    private boolean responseStarted;
    private int responseStatus;
    private boolean responseComplete;
    private boolean storeReusable = true;
    private boolean clientReadPending;
    private boolean storeReadPending;
    private boolean finished;
    /** The request head went to the store without a flush: the first body chunk takes it along. */
    private boolean headUnflushed;
    /** The write of the request's end: the connection is reused only once it went out whole. */
    private ChannelFuture requestEnd;
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
    /**
     * Held back until what was written before it has gone to the kernel: the body from the byte
     * the store applies the write on (its last byte; for an aws-chunked body, its data's last),
     * then whatever came after it. Made on the first hold: most writes never hold anything.
     */
    private ArrayDeque<HttpContent> held;

    /** Told once when the exchange ends, whether the store's outcome is known. */
    interface AfterStore {
        AfterStore NOTHING = outcomeKnown -> { };

        void ended(boolean outcomeKnown);
    }

    /** @param window what the fence admitted the write within: nothing goes to the store once it has closed */
    StoreExchange(ChannelHandlerContext client, HttpRequest request, String target, boolean expectContinue,
                  StoreConnections connections, Listener listener, AfterStore afterStore, SendWindow window) {
        this.client = client;
        this.request = request;
        this.target = target;
        this.expectContinue = expectContinue;
        this.keepClient = HttpUtil.isKeepAlive(request);
        this.connections = connections;
        this.listener = listener;
        this.afterStore = afterStore;
        this.window = window;
        this.appliedBeforeItsEnd = awsChunked(request.headers());
        this.awsData = appliedBeforeItsEnd ? AwsChunkedData.declaring(request.headers().get("x-amz-decoded-content-length")) : null;
    }

    /** Whether a store may read the body as aws-chunked: any of the headers S3 stores decide it by. */
    static boolean awsChunked(HttpHeaders headers) {
        if (headers.contains("x-amz-decoded-content-length")) {
            return true;
        }
        // Looked up before the values are listed: most requests carry neither header.
        if (headers.contains("x-amz-content-sha256")) {
            for (String payload : headers.getAll("x-amz-content-sha256")) {
                if (payload.strip().regionMatches(true, 0, "STREAMING-", 0, "STREAMING-".length())) {
                    return true;
                }
            }
        }
        if (headers.contains(HttpHeaderNames.CONTENT_ENCODING)) {
            for (String coding : headers.getAll(HttpHeaderNames.CONTENT_ENCODING)) {
                if (coding.toLowerCase(Locale.ROOT).contains("aws-chunked")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The store's own URLs in the answer get the client's host back. Call before {@link #start}. */
    void giveBackHost(StoreHost host) {
        this.storeHost = host;
    }

    /** The answer is kept from the client until {@code answer}'s check passes. Call before {@link #start}. */
    void checkAnswer(CheckedAnswer answer) {
        this.checkedAnswer = answer;
    }

    void start(long timeoutMillis) {
        if (window.closed()) {
            // Already past it (the body came late, or this process paused): no store connection is even opened.
            expire();
            return;
        }
        deadline = client.executor().schedule(this::onDeadline, timeoutMillis, TimeUnit.MILLISECONDS);
        connections.acquire(client.channel().eventLoop()).addListener((ChannelFuture connected) -> {
            if (!connected.isSuccess()) {
                fail(Outcome.STORE_UNREACHABLE, "store connection failed: " + connected.cause().getMessage());
            } else if (finished) {
                connected.channel().close();
            } else {
                onConnected(connected.channel());
            }
        });
    }

    private void onConnected(Channel channel) {
        store = channel;
        store.pipeline().get(StoreResponseReceiver.class).bind(this);
        if (window.closed()) {
            expire();
            return;
        }
        HttpHeaders headers = request.headers().copy();
        HopByHop.strip(headers);
        // The gateway answered (or will answer) the expectation itself.
        headers.remove(HttpHeaderNames.EXPECT);
        store.write(new DefaultHttpRequest(HttpVersion.HTTP_1_1, request.method(), target, headers));
        headUnflushed = true;
        sentToStore = true;
        store.read();
        if (expectContinue) {
            client.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
        readClient();
        // No body chunk was at hand: the head goes out alone.
        if (headUnflushed && !finished) {
            headUnflushed = false;
            store.flush();
        }
    }

    void onClientContent(HttpContent content) {
        if (finished || responseComplete || store == null) {
            content.release();
            return;
        }
        if (holding()) {
            // Came in the same read as what is held: it follows it out.
            held.add(content);
            return;
        }
        if (window.closed()) {
            content.release();
            expire();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        if (last && !((LastHttpContent) content).trailingHeaders().isEmpty()) {
            // A request's trailer fields are not passed on: a store that merges them into the header
            // section (Apache's MergeTrailers) would read a Depth, Host or token nobody checked.
            ((LastHttpContent) content).trailingHeaders().clear();
        }
        headUnflushed = false;
        int decisive = awsData == null ? -1 : awsData.wholeAt(content.content());
        if (decisive < 0 && last) {
            decisive = Math.max(0, content.content().readableBytes() - 1);
        }
        if (decisive >= 0 && socketFull()) {
            holdFrom(content, decisive);
            return;
        }
        ChannelFuture written = store.writeAndFlush(content);
        if (last) {
            failIfSentLate(written);
            ended(written);
        } else if (store.isWritable()) {
            readClient();
        } else {
            clientReadPending = true;
        }
    }

    private void ended(ChannelFuture written) {
        requestEnd = written;
        requestComplete = true;
        if (responseComplete) {
            complete();
        }
    }

    /** Whether bytes flushed to the store connection wait in its buffer for the socket to take them. */
    private boolean socketFull() {
        ChannelOutboundBuffer pending = store.unsafe().outboundBuffer();
        return pending != null && !pending.isEmpty();
    }

    /**
     * The window is checked as a chunk is handed to the connection, but a chunk queued behind a
     * full socket leaves when the socket drains, and the event loop flushes it before it runs its
     * timers, so after a pause of this process (a long GC, a stalled VM) the byte the store applies
     * the write on would go out unchecked, after its registration expired and a higher token went
     * ahead. So under backpressure the chunk holding that byte (the request's last; for an
     * aws-chunked body, the last of its data, which S3Proxy applies on) is written only up to it,
     * and the rest only once everything before it has gone to the kernel, after the window is
     * checked again. The store applies nothing before that byte.
     */
    private void holdFrom(HttpContent content, int decisive) {
        if (decisive > 0) {
            store.write(new DefaultHttpContent(content.content().readRetainedSlice(decisive)));
        }
        if (held == null) {
            held = new ArrayDeque<>(2);
        }
        held.add(content);
        store.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(flushed -> store.eventLoop().execute(this::sendHeld));
    }

    private void sendHeld() {
        HttpContent first = held == null ? null : held.poll();
        if (first == null) {
            return;
        }
        if (finished || responseComplete) {
            // Answered already (its answer may still be under its check): the rest has nowhere to go.
            first.release();
            releaseHeld();
            return;
        }
        if (window.closed()) {
            first.release();
            releaseHeld();
            expire();
            return;
        }
        ChannelFuture written = store.writeAndFlush(first);
        failIfSentLate(written);
        if (first instanceof LastHttpContent) {
            ended(written);
            return;
        }
        if (held.isEmpty()) {
            if (store.isWritable()) {
                readClient();
            } else {
                clientReadPending = true;
            }
            return;
        }
        // What came after it in the same read goes as it would have, in order, each chunk checked.
        List<HttpContent> after = new ArrayList<>(held);
        held.clear();
        after.forEach(this::onClientContent);
    }

    /**
     * The kernel had no room even for the request's end: it waits in the connection's buffer.
     * Should it leave only after the window closed, the exchange fails with its outcome unknown,
     * and the reset drops the end from the kernel's queue, where it follows what the full socket
     * still held.
     */
    private void failIfSentLate(ChannelFuture written) {
        if (!written.isDone()) {
            written.addListener(sent -> {
                if (!finished && window.closed()) {
                    fail(Outcome.ADMISSION_EXPIRED, "the end of the write left for the store after its admission expired", false);
                }
            });
        }
    }

    private void releaseHeld() {
        HttpContent content;
        while (held != null && (content = held.poll()) != null) {
            content.release();
        }
    }

    private boolean holding() {
        return held != null && !held.isEmpty();
    }

    void onStoreWritable() {
        if (clientReadPending && !finished) {
            clientReadPending = false;
            readClient();
        }
    }

    void onClientWritable() {
        if (storeReadPending && !finished) {
            storeReadPending = false;
            store.read();
        }
    }

    void onStoreMessage(Object msg) {
        if (finished) {
            ReferenceCountUtil.release(msg);
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
        if (msg instanceof HttpResponse response) {
            if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
                // 1xx from the store is not passed on: the gateway owns the client's 100-continue.
                ReferenceCountUtil.release(msg);
                if (response.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
                    fail(Outcome.STORE_ANSWER_UNREADABLE, "store switched protocols, which was not asked for");
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
        if (msg instanceof HttpResponse response && (!keepClient || !requestComplete || answerEndsWithConnection)) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        if (checkedAnswer != null) {
            keepAnswer((HttpObject) msg, last);
        } else if (last) {
            client.writeAndFlush(msg);
            // If the store answered before the body ended, the rest of it has nowhere to go:
            // complete() then closes both connections.
            complete();
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
            fail(Outcome.STORE_ANSWER_UNREADABLE, "store answer larger than the gateway reads to check it");
        } else if (!last) {
            store.read();
        } else {
            checkedAnswer.check(responseStatus).whenComplete((refusal, failure) ->
                    client.executor().execute(() -> onAnswerChecked(refusal, failure)));
        }
    }

    private void onAnswerChecked(Optional<Problem> refusal, Throwable failure) {
        if (finished) {
            return;
        }
        if (failure != null || refusal.isPresent()) {
            Problem problem = failure != null ? Problem.of(Outcome.FENCE_UNAVAILABLE, "store answer not checked: " + failure)
                    : refusal.get();
            fail(problem.outcome(), problem.detail());
            return;
        }
        responseStarted = true;
        CheckedAnswer answer = checkedAnswer;
        checkedAnswer = null;
        answer.writeTo(client);
        complete();
    }

    /** The store's read batch ended: what it brought goes to the client. */
    void onStoreReadComplete() {
        if (!finished) {
            client.flush();
        }
    }

    void onStoreClosed(Throwable cause) {
        // A whole answer kept for its check needs the connection no more.
        if (finished || responseComplete) {
            return;
        }
        String detail = cause == null ? "store closed the connection" : "store connection failed: " + cause.getMessage();
        fail(Outcome.STORE_UNREACHABLE, detail);
    }

    void onClientClosed() {
        if (!finished) {
            finished = true;
            releaseCheckedAnswer();
            releaseHeld();
            afterStore.ended(!sentToStore);
            cancelDeadline();
            if (store != null) {
                reset(store);
            }
        }
    }

    private void onDeadline() {
        if (finished) {
            return;
        }
        if (!requestComplete && window.closed()) {
            // Due together with the window's end (this process woke from a pause, or the client sent
            // slowly), the timer ran first: the store was waiting for the rest, which the gateway cuts.
            expire();
            return;
        }
        fail(Outcome.STORE_TIMEOUT, "store did not answer within the upstream timeout");
    }

    /** True while the body is being relayed and the gateway is waiting on the client for more. */
    boolean awaitingClientBody() {
        return store != null && !requestComplete && !clientReadPending && !finished && !holding();
    }

    /** The store's status code, once its answer started; 0 before. */
    int responseStatus() {
        return responseStatus;
    }

    boolean responseStarted() {
        return responseStarted;
    }

    private void complete() {
        finished = true;
        releaseHeld();
        releaseCheckedAnswer();
        afterStore.ended(true);
        cancelDeadline();
        StoreResponseReceiver receiver = store.pipeline().get(StoreResponseReceiver.class);
        if (receiver != null) {
            receiver.unbind();
        }
        if (storeReusable && requestComplete && requestEnd != null && requestEnd.isSuccess()) {
            connections.release(store);
        } else {
            store.close();
        }
        listener.exchangeCompleted(requestComplete && keepClient && !answerEndsWithConnection);
    }

    /**
     * The write's window closed before all of it went out (this process paused, the client was
     * slow, or renewals failed): the store connection is closed without finishing the request, so
     * the store never applies it, and the outcome is known; unless the body is aws-chunked and
     * anything of the request went out, which a store may apply from what it has (the outcome is
     * then unknown).
     */
    private void expire() {
        if (appliedBeforeItsEnd && sentToStore) {
            fail(Outcome.ADMISSION_EXPIRED, "the write's admission expired before it was fully sent to the store;"
                    + " its body is aws-chunked, which a store may apply from the data it already has", false);
            return;
        }
        fail(Outcome.ADMISSION_EXPIRED, "the write's admission expired before it was fully sent to the store;"
                + " the store connection was cut before the request ended, so the store does not apply it", true);
    }

    /** A failure after bytes went to the store leaves its outcome unknown: it may still apply them. */
    private void fail(Outcome outcome, String detail) {
        fail(outcome, detail, !sentToStore);
    }

    private void fail(Outcome outcome, String detail, boolean outcomeKnown) {
        finished = true;
        releaseCheckedAnswer();
        releaseHeld();
        afterStore.ended(outcomeKnown);
        cancelDeadline();
        if (store != null) {
            store.pipeline().get(StoreResponseReceiver.class).unbind();
            reset(store);
        }
        listener.exchangeFailed(outcome, detail);
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
        store.close();
    }

    private void releaseCheckedAnswer() {
        if (checkedAnswer != null) {
            checkedAnswer.release();
            checkedAnswer = null;
        }
    }

    private void readClient() {
        if (!requestComplete) {
            listener.readRequestBody();
        }
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
        }
    }
}
