package dev.fencegate.proxy;

import dev.fencegate.fence.SendWindow;
import dev.fencegate.http.Outcome;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.Future;

/**
 * The request half of a {@link StoreExchange}: once the store connection is there (it listens
 * for it), sends the head, then the body chunk by chunk, reading the next from the client only
 * when the store connection can take it, and only while the write's window is open. Runs on the
 * client's event loop.
 */
final class StoreRequestSender implements ChannelFutureListener {

    private final StoreExchange exchange;
    private final ChannelHandlerContext client;
    private final HttpRequest request;
    private final String target;
    private final boolean expectContinue;
    private final SendWindow window;
    private final StoreExchange.Listener listener;
    /**
     * The body is aws-chunked: a store that decodes it (S3Proxy) applies the object once it has read
     * the data the request declares, before the request's end (and may take a declared length of 0
     * as whole on the head), so cutting the request short once anything went out does not keep it
     * from being applied.
     */
    private final boolean appliedBeforeItsEnd;
    /** Where an aws-chunked body's data is whole; null for any other body. */
    private final AwsChunkedData awsData;
    /**
     * The request has no body (no chunked coding, no or a zero {@code Content-Length}): its head is
     * the whole of it, which a store may apply as soon as it has the head, and its end adds no byte.
     */
    private final boolean bodiless;
    private Channel store;
    /** The store connection's last handler before its socket: it checks the window as the socket takes each flush. */
    private SocketGate gate;
    private boolean sentToStore;
    private boolean requestComplete;
    private boolean clientReadPending;
    /** The request head went to the store without a flush: the first body chunk takes it along. */
    private boolean headUnflushed;
    /** The write of the request's end: the connection is reused only once it went out whole. */
    private ChannelFuture requestEnd;
    /** The write of the request's head: a bodiless request's whole. */
    private ChannelFuture headWritten;
    /** Body held back behind a full socket; made on the first hold. */
    private HeldChunks held;

    /** @param window what the fence admitted the write within: nothing goes to the store once it has closed */
    StoreRequestSender(StoreExchange exchange, ChannelHandlerContext client, HttpRequest request, String target,
                       boolean expectContinue, SendWindow window, StoreExchange.Listener listener) {
        this.exchange = exchange;
        this.client = client;
        this.request = request;
        this.target = target;
        this.expectContinue = expectContinue;
        this.window = window;
        this.listener = listener;
        this.appliedBeforeItsEnd = AwsChunkedBodies.declaredBy(request.headers());
        this.awsData = appliedBeforeItsEnd ? AwsChunkedData.declaring(request.headers().get("x-amz-decoded-content-length")) : null;
        this.bodiless = RequestBodies.none(request);
    }

    /** The store connection was acquired, or not. */
    @Override
    public void operationComplete(ChannelFuture connected) {
        if (!connected.isSuccess()) {
            exchange.fail(Outcome.STORE_UNREACHABLE, "store connection failed: " + StoreProbe.systemWords(connected.cause()));
        } else if (exchange.finished()) {
            connected.channel().close();
        } else {
            onConnected(connected.channel());
        }
    }

    private void onConnected(Channel channel) {
        store = channel;
        exchange.connected(channel);
        if (window.closed()) {
            expire();
            return;
        }
        gate = store.pipeline().get(SocketGate.class);
        gate.bind(window, () -> {
            if (!exchange.finished()) {
                expire();
            }
        });
        HttpHeaders headers = request.headers().copy();
        HopByHop.strip(headers);
        // The gateway answered (or will answer) the expectation itself.
        headers.remove(HttpHeaderNames.EXPECT);
        headWritten = store.write(new DefaultHttpRequest(HttpVersion.HTTP_1_1, request.method(), target, headers));
        if (bodiless) {
            unbindOnceWhole(headWritten);
        }
        headUnflushed = true;
        sentToStore = true;
        store.read();
        if (expectContinue) {
            client.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
        readClient();
        // No body chunk was at hand: the head goes out alone.
        if (headUnflushed && !exchange.finished()) {
            headUnflushed = false;
            store.flush();
        }
    }

    void onClientContent(HttpContent content) {
        if (exchange.answeredOrOver() || store == null) {
            content.release();
            return;
        }
        if (holding()) {
            // Came in the same read as what is held: it follows it out.
            held.add(content);
            return;
        }
        boolean last = content instanceof LastHttpContent;
        // A bodiless request's end adds no byte to what went out: its head was checked as it left.
        if (window.closed() && !(last && bodiless && !content.content().isReadable())) {
            content.release();
            expire();
            return;
        }
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
        if (decisive >= 0 && HeldChunks.socketFull(store)) {
            if (held == null) {
                held = new HeldChunks(exchange, this, store, window);
            }
            held.holdFrom(content, decisive);
            return;
        }
        ChannelFuture written = store.writeAndFlush(content);
        if (last) {
            failIfSentLate(written);
            ended(written);
        } else {
            readClientWhenWritable();
        }
    }

    void ended(ChannelFuture written) {
        requestEnd = written;
        requestComplete = true;
        unbindOnceWhole(written);
        exchange.requestEnded();
    }

    /**
     * Once the socket took the last byte of the request, nothing of it is left to check: the
     * connection's gate lets what follows pass (a TLS store's key update, its renegotiation), where
     * a closed window would otherwise reset a connection whose store has the request whole, and may
     * be applying it.
     */
    private void unbindOnceWhole(ChannelFuture written) {
        if (written.isDone()) {
            // Most writes: the socket took them in the flush itself, and no listener is needed.
            unbindIfWhole(written);
        } else {
            written.addListener(this::unbindIfWhole);
        }
    }

    private void unbindIfWhole(Future<?> sent) {
        if (sent.isSuccess() && !exchange.finished()) {
            gate.unbind();
        }
    }

    /**
     * The kernel had no room even for the request's end: it waits in the connection's buffer.
     * Should it leave only after the window closed, the exchange fails with its outcome unknown,
     * and the reset drops the end from the kernel's queue, where it follows what the full socket
     * still held.
     */
    void failIfSentLate(ChannelFuture written) {
        if (!written.isDone()) {
            written.addListener(sent -> {
                if (exchange.finished() || !window.closed()) {
                    return;
                }
                if (sent.isSuccess()) {
                    exchange.fail(Outcome.ADMISSION_EXPIRED, "the end of the write left for the store after its admission expired", false);
                } else {
                    // Not taken whole by the socket: the store has not got the request's end.
                    expire();
                }
            });
        }
    }

    /**
     * The write's window closed before all of it went out (this process paused, the client was
     * slow, or renewals failed): the store connection is closed without finishing the request, so
     * the store never applies it, and the outcome is known; unless the body is aws-chunked and
     * anything of the request went out, which a store may apply from what it has (the outcome is
     * then unknown). Should the request have gone out whole after all (its last byte taken by the
     * socket before the window closed), the store may apply it, and the outcome is unknown too.
     */
    void expire() {
        if (wentOutWhole()) {
            exchange.fail(Outcome.ADMISSION_EXPIRED, "the write's admission expired after the whole request went to the store,"
                    + " which may apply it", false);
            return;
        }
        if (appliedBeforeItsEnd && sentToStore) {
            exchange.fail(Outcome.ADMISSION_EXPIRED, "the write's admission expired before it was fully sent to the store;"
                    + " its body is aws-chunked, which a store may apply from the data it already has", false);
            return;
        }
        exchange.fail(Outcome.ADMISSION_EXPIRED, "the write's admission expired before it was fully sent to the store;"
                + " the store connection was cut before the request ended, so the store does not apply it", true);
    }

    void onStoreWritable() {
        if (clientReadPending && !exchange.finished()) {
            clientReadPending = false;
            readClient();
        }
    }

    /** The next chunk is read from the client now if the store connection can take it, else once it can. */
    void readClientWhenWritable() {
        if (store.isWritable()) {
            readClient();
        } else {
            clientReadPending = true;
        }
    }

    private void readClient() {
        if (!requestComplete) {
            listener.readRequestBody();
        }
    }

    private boolean holding() {
        return held != null && held.holding();
    }

    void releaseHeld() {
        if (held != null) {
            held.release();
        }
    }

    /**
     * True while the body is being relayed and the sender is waiting on the client for more, as
     * far as the sender knows: whether the exchange has ended it does not, so ask the exchange.
     */
    boolean awaitingClientBody() {
        return store != null && !requestComplete && !clientReadPending && !holding();
    }

    /**
     * Whether the store cannot apply the request if its connection is reset now: nothing of it went
     * out, or its end did not and its body is not aws-chunked (which a store may apply from the data
     * it has). The reset drops what the kernel still held, and a store applies a request only once
     * it has read it to its end, as {@link #expire} says too.
     */
    boolean notAppliedIfCutNow() {
        return !sentToStore || !requestComplete && !appliedBeforeItsEnd && !wentOutWhole();
    }

    /**
     * Whether the socket took the request's last byte: its end's write, or a bodiless request's
     * head, went out whole. A reset cannot take back what the store then has.
     */
    private boolean wentOutWhole() {
        ChannelFuture last = bodiless ? headWritten : requestEnd;
        return last != null && last.isSuccess();
    }

    /** Whether anything of the request went to the store: from then on, it may apply it. */
    boolean sentToStore() {
        return sentToStore;
    }

    boolean requestComplete() {
        return requestComplete;
    }

    /** The request's end was written, and went out whole. */
    boolean sentWhole() {
        return requestComplete && requestEnd != null && requestEnd.isSuccess();
    }
}
