package dev.fencegate.proxy;

import dev.fencegate.http.HeaderNames;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Asks the store, before a DELETE's fence is asked, whether the DELETE's path names a collection.
 * Servers built on Go's {@code golang.org/x/net/webdav} (Caddy's {@code webdav}, {@code rclone
 * serve webdav}) ignore {@code Depth} and delete a collection's whole tree on a DELETE of its name
 * without the final '/': every object under it, each with a fence of its own, where the gateway
 * checks the fence of that name alone. One {@code PROPFIND} with {@code Depth: 0}, which a WebDAV
 * store answers with the resource's type, on a kept-alive connection to the store, given back
 * for the next request once the answer ended cleanly (as an exchange's is) and closed otherwise;
 * asked again once on a new connection when a kept-alive one closes before any answer (the store
 * let it go idle meanwhile), as a {@code PROPFIND} changes nothing.
 * The DELETE goes on to its fence only when the store says the path is no collection: a 207
 * whose resource type names none, a 404 (nothing there), or a 405 or 501 (no {@code PROPFIND}
 * served: nginx without its DAV extension, a store that is not WebDAV, none of which deletes a
 * collection at that name). Any other answer (a collection, a redirect, a refusal of the
 * client's credentials, 5xx), a failure or no answer in time refuses the DELETE: whether it would
 * delete a tree is not known. The probe carries the DELETE's own end-to-end headers (its
 * credentials, cookies and keys), so a store that authorises the one authorises the other. The
 * answer cannot go stale through the gateway, which serves no {@code MKCOL}, and a {@code PUT}
 * makes no collection of an object's name. Runs on the client's event loop; {@link #cancel}
 * closes its connection when the client goes.
 */
final class CollectionProbe implements StoreListener {

    /** A PROPFIND answer for one resource is a few hundred bytes; a longer one is not read. */
    static final int MAX_ANSWER_BYTES = 64 * 1024;
    private static final HttpMethod PROPFIND = HttpMethod.valueOf("PROPFIND");
    /** DAV's {@code collection} element, under any prefix, as a resource type names it. */
    private static final Pattern COLLECTION = Pattern.compile("<(?:[A-Za-z_][\\w.-]*:)?collection[\\s/>]");
    /** DAV's {@code resourcetype} property, under any prefix: a 207 without it tells nothing. */
    private static final Pattern RESOURCE_TYPE = Pattern.compile("<(?:[A-Za-z_][\\w.-]*:)?resourcetype[\\s/>]");
    /** The DELETE's headers that describe its (absent) body, not the client; its Depth and length are set anew. */
    private static final List<CharSequence> NOT_COPIED = List.of(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.CONTENT_TYPE,
            HttpHeaderNames.EXPECT);

    /** What {@link StoreAnswers} needs to know of the request: a PROPFIND (not a HEAD). */
    private static final HttpRequest PROBE_SHAPE = new DefaultHttpRequest(HttpVersion.HTTP_1_1, PROPFIND, "/");

    private final CompletableFuture<Optional<Problem>> result = new CompletableFuture<>();
    private final String target;
    /** The path as the client named it, for the refusals: the store's own path stays the operator's. */
    private final String shown;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private Channel store;
    /** Where the store is asked, and with the DELETE's headers: again too, on a new connection. */
    private StoreConnections connections;
    private EventLoop loop;
    private HttpHeaders request;
    /** The connection was an idle one, which the store may have closed as it was taken. */
    private boolean reused;
    /** The request went out whole: only then may the connection carry another. */
    private boolean sent;
    /** The final answer's head, once it came. */
    private HttpResponse answered;
    /** The final answer's status; 0 until it came (an interim answer is passed over). */
    private int status;
    private ScheduledFuture<?> deadline;
    /** The probe has its answer, which completes {@link #result} at once or, with the connection given back, in a later task. */
    private boolean ended;

    private CollectionProbe(String target, String shown) {
        this.target = target;
        this.shown = shown;
    }

    /**
     * Completes, on {@code loop}, with the refusal of the DELETE of {@code target} (the path the
     * store gets; {@code shown}, the client's), or with nothing when the store deletes no
     * collection there. {@code request}: the DELETE's headers, with the Host the store gets; its
     * end-to-end ones go along.
     */
    static CollectionProbe ask(StoreConnections connections, EventLoop loop, String target, String shown,
                               HttpHeaders request, long timeoutMillis) {
        CollectionProbe probe = new CollectionProbe(target, shown);
        probe.start(connections, loop, request, timeoutMillis);
        return probe;
    }

    /** The refusal, or nothing when the DELETE may go on to its fence; completed on the loop. */
    CompletableFuture<Optional<Problem>> answer() {
        return result;
    }

    /** The client went: the store's answer is not needed. Call on the loop. */
    void cancel() {
        end(refusal(Outcome.CLIENT_CLOSED, "was not heard out: the client closed its connection"));
    }

    private void start(StoreConnections connections, EventLoop loop, HttpHeaders request, long timeoutMillis) {
        this.connections = connections;
        this.loop = loop;
        this.request = request;
        deadline = loop.schedule(() -> end(refusal(Outcome.STORE_TIMEOUT, "did not say within " + timeoutMillis + " ms")),
                timeoutMillis, TimeUnit.MILLISECONDS);
        Channel idle = connections.idle();
        reused = idle != null;
        ask(reused ? idle.newSucceededFuture() : connections.connect(loop));
    }

    private void ask(ChannelFuture connection) {
        connection.addListener((ChannelFuture connected) -> {
            if (!connected.isSuccess()) {
                end(refusal(Outcome.STORE_UNREACHABLE, "could not be asked: " + connected.cause().getMessage()));
                return;
            }
            store = connected.channel();
            if (ended) {
                // Answered meanwhile (its deadline passed): the connection is not needed.
                store.close();
                return;
            }
            StoreResponseReceiver receiver = store.pipeline().get(StoreResponseReceiver.class);
            if (receiver == null) {
                end(refusal(Outcome.STORE_UNREACHABLE, "could not be asked: the connection closed"));
                return;
            }
            receiver.bind(this);
            FullHttpRequest propfind = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, PROPFIND, target);
            propfind.headers().set(request);
            HopByHop.strip(propfind.headers());
            NOT_COPIED.forEach(propfind.headers()::remove);
            propfind.headers().set(HeaderNames.DEPTH, "0").setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
            Channel asked = store;
            store.writeAndFlush(propfind).addListener(written -> {
                if (asked != store) {
                    return; // asked again on another connection meanwhile
                }
                if (written.isSuccess()) {
                    sent = true;
                } else {
                    askAgainOrEnd(refusal(Outcome.STORE_UNREACHABLE, "could not be asked: " + written.cause().getMessage()));
                }
            });
            if (asked == store) {
                // Not asked again meanwhile (a write that failed at once).
                store.read();
            }
        });
    }

    @Override
    public void onStoreMessage(Object msg) {
        try {
            if (ended) {
                return;
            }
            if (msg instanceof HttpResponse response) {
                if (response.decoderResult().isFailure()) {
                    end(refusal(Outcome.STORE_ANSWER_UNREADABLE, "gave an answer that could not be read"));
                    return;
                }
                // An interim answer (100) is followed by the final one; its own end is passed over.
                status = response.status().code() < 200 ? 0 : response.status().code();
                answered = status == 0 ? null : response;
            }
            if (msg instanceof HttpContent content && status != 0) {
                ByteBuf bytes = content.content();
                if (content.decoderResult().isFailure() || body.size() + bytes.readableBytes() > MAX_ANSWER_BYTES) {
                    end(refusal(Outcome.STORE_ANSWER_UNREADABLE, "gave an answer that could not be read whole (at most "
                            + MAX_ANSWER_BYTES + " bytes are)"));
                    return;
                }
                bytes.readBytes(body, bytes.readableBytes());
                if (content instanceof LastHttpContent) {
                    end(judged(), reusable());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private Optional<Problem> judged() {
        if (status == 404 || status == 405 || status == 501) {
            return Optional.empty();
        }
        if (status != 207) {
            return refusal(Outcome.STORE_ANSWER_UNREADABLE, "answered " + status);
        }
        String answer = body.toString(StandardCharsets.UTF_8);
        if (COLLECTION.matcher(answer).find()) {
            return Optional.of(Problem.of(Outcome.AMBIGUOUS_PATH, "'" + shown + "' is a collection at the store: a DELETE of it"
                    + " would remove every object under it, each with a fence of its own (a store that ignores Depth does);"
                    + " delete the objects one by one"));
        }
        return RESOURCE_TYPE.matcher(answer).find() ? Optional.empty()
                : refusal(Outcome.STORE_ANSWER_UNREADABLE, "answered 207 without a resource type");
    }

    /**
     * Whether the connection may carry another request: the PROPFIND went out whole, and its
     * answer ended by its own framing, on a connection the store keeps, with nothing after it.
     */
    private boolean reusable() {
        StoreCodec codec = store.pipeline().get(StoreCodec.class);
        return sent && HttpUtil.isKeepAlive(answered) && StoreAnswers.endsOnItsOwn(PROBE_SHAPE, answered)
                && codec != null && !codec.holdsUnusedBytes();
    }

    /** The DELETE refused, since the store did not say whether its path is a collection. */
    private Optional<Problem> refusal(Outcome outcome, String what) {
        return Optional.of(Problem.of(outcome, "the store " + what + " when asked whether '" + shown
                + "' is a collection (PROPFIND), which a DELETE of it would remove whole"));
    }

    @Override
    public void onStoreReadComplete() {
        if (!ended && store != null) {
            store.read();
        }
    }

    @Override
    public void onStoreWritable() {
    }

    @Override
    public void onStoreClosed(Throwable cause) {
        askAgainOrEnd(refusal(Outcome.STORE_UNREACHABLE, cause == null ? "closed the connection before its answer ended"
                : "connection failed (" + cause.getMessage() + ")"));
    }

    /**
     * A kept-alive connection the store closed as it was taken, before any answer: the store is
     * asked again, once, on a new connection. Otherwise the probe ends with {@code refusal}.
     */
    private void askAgainOrEnd(Optional<Problem> refusal) {
        if (!reused || status != 0 || ended) {
            end(refusal);
            return;
        }
        StoreResponseReceiver receiver = store.pipeline().get(StoreResponseReceiver.class);
        if (receiver != null) {
            receiver.unbind();
        }
        store.close();
        reused = false;
        sent = false;
        store = null;
        ask(connections.connect(loop));
    }

    private void end(Optional<Problem> answer) {
        end(answer, false);
    }

    /**
     * Ends the probe with {@code answer}; the connection goes back to the idle ones if {@code
     * reusable}, or is closed. The answer of a probe whose connection was given back is completed
     * in a task after this read, as a connection over TLS becomes idle only then
     * ({@link StoreConnections#release}): the DELETE it lets go on takes that connection once no
     * byte of this read can reach it.
     */
    private void end(Optional<Problem> answer, boolean reusable) {
        if (ended) {
            return;
        }
        ended = true;
        deadline.cancel(false);
        if (store != null) {
            StoreResponseReceiver receiver = store.pipeline().get(StoreResponseReceiver.class);
            if (receiver != null) {
                receiver.unbind();
            }
            if (!reusable) {
                store.close();
            } else {
                connections.release(store);
                try {
                    loop.execute(() -> result.complete(answer));
                    return;
                } catch (RejectedExecutionException shuttingDown) {
                    // The loop takes no more tasks: answered here, so the DELETE never waits for it.
                }
            }
        }
        result.complete(answer);
    }
}
