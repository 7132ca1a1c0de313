package dev.fencegate.client;

import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A write's body that lets java.net.http make one attempt at sending the write. After a reused
 * connection closes without an answer, the JDK sends a PUT, POST or DELETE again, unasked and
 * without a check of the lease, when {@value FencedHttpClient#RETRY_ALL_METHODS} read true as the
 * JVM made its first request: it reads the property once, then, so no look at it when a client is
 * built can rule the resend out. The JDK asks a request's body for its length once per attempt,
 * just before it writes the attempt's head ({@code Http1Request.headers} and
 * {@code Stream.sendHeadersAsync} on JDK 17), a write without a body included; the second asking
 * fails that attempt before a byte of it leaves. A connection that could not be made is tried
 * again before the head is written, so that retry, which sends nothing twice, still goes ahead.
 */
final class OneAttemptBody implements HttpRequest.BodyPublisher {

    private final HttpRequest.BodyPublisher body;
    private final AtomicInteger attempts = new AtomicInteger();

    OneAttemptBody(HttpRequest.BodyPublisher body) {
        this.body = body;
    }

    @Override
    public long contentLength() {
        if (attempts.incrementAndGet() > 1) {
            throw new IllegalStateException("java.net.http went to send the write again: the connection closed before"
                    + " its answer and jdk.httpclient.enableAllMethodRetry was set when this JVM made its first request");
        }
        return body.contentLength();
    }

    /** Whether the JDK went to send the write again, and that attempt was failed here. */
    boolean refusedAResend() {
        return attempts.get() > 1;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        body.subscribe(subscriber);
    }
}
