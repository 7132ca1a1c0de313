package dev.fencegate.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link HttpClient} whose writes carry the lease's fencing headers. A write is not sent once
 * the guard has tripped ({@link LeaseLostException}); the gateway's refusal of a write becomes a
 * {@link FencedOutException} and trips the guard. Any other answer, a store's own 412 included,
 * reaches the caller's body handler unchanged. Writes are sent without {@code Expect: 100-continue},
 * whatever the request asks: see {@link #send}. A write is sent once, whatever java.net.http read
 * of {@value #RETRY_ALL_METHODS}: an attempt to send it again fails before a byte of it leaves.
 */
public final class FencedHttpClient {

    private record Refused(FenceRefusal refusal, String body) {
    }

    /** The JDK property that has java.net.http send any method again after a connection fails. */
    static final String RETRY_ALL_METHODS = "jdk.httpclient.enableAllMethodRetry";

    private final HttpClient http;
    private final WriteFencing fencing;
    private final NameLookup lookup;

    /**
     * @throws IllegalArgumentException when {@code http} follows redirects or answers
     *         authentication challenges: it would send a write again, with its token, without a
     *         check of the lease, and a redirect to wherever the answer points; when it has an
     *         executor of its own, whose queue could hold a checked write past the lease; when
     *         {@value #RETRY_ALL_METHODS} is set, which sends writes again (the JDK reads it once,
     *         at the JVM's first request, so a resend is also failed as it is attempted); or when
     *         it has no connect timeout below the lease's margin: a write is checked against the lease
     *         before the client connects, and sent once it has, however long that took
     */
    public FencedHttpClient(HttpClient http, WriteFencing fencing) {
        this(http, fencing, NameLookup.SYSTEM);
    }

    FencedHttpClient(HttpClient http, WriteFencing fencing, NameLookup lookup) {
        Duration margin = fencing.guard().margin();
        if (http.connectTimeout().isEmpty() || http.connectTimeout().get().compareTo(margin) >= 0) {
            throw new IllegalArgumentException("http: connect timeout " + http.connectTimeout().map(Duration::toString).orElse("none")
                    + " (expected an HttpClient built with a connectTimeout below the lease's margin, " + margin + ": a write"
                    + " checked against the lease goes out once its connection is made, and one made later than that"
                    + " would send it after the lease ran out)");
        }
        if (http.followRedirects() != HttpClient.Redirect.NEVER) {
            throw new IllegalArgumentException("http: follows redirects (" + http.followRedirects() + "); a redirected"
                    + " write would be sent again, token included, without a check of the lease and to wherever the"
                    + " answer points (expected an HttpClient built with followRedirects(Redirect.NEVER), the default)");
        }
        if (http.authenticator().isPresent()) {
            throw new IllegalArgumentException("http: has an Authenticator; a write answered 401 would be sent again"
                    + " without a check of the lease (expected none: put credentials on the request)");
        }
        if (http.executor().isPresent()) {
            throw new IllegalArgumentException("http: has an executor of its own; java.net.http starts each exchange on it,"
                    + " so a write checked against the lease could wait in its queue, unbounded, and leave after the lease"
                    + " ran out (expected an HttpClient built without executor(...))");
        }
        if (retriesAllMethods()) {
            throw new IllegalArgumentException(RETRY_ALL_METHODS + " is set: java.net.http would send a PUT, POST or DELETE"
                    + " again on a new connection, without a check of the lease (expected it unset)");
        }
        this.http = http;
        this.fencing = fencing;
        this.lookup = lookup;
    }

    /**
     * Whether java.net.http sends any method again after a connection fails: as the JDK reads
     * {@value #RETRY_ALL_METHODS}, from the system properties or else {@code conf/net.properties},
     * an empty value meaning true.
     */
    static boolean retriesAllMethods() {
        String value = System.getProperty(RETRY_ALL_METHODS);
        if (value == null) {
            Properties net = new Properties();
            try (InputStream in = Files.newInputStream(Path.of(System.getProperty("java.home"), "conf", "net.properties"))) {
                net.load(in);
            } catch (IOException | RuntimeException e) {
                // No such file: the JDK's default, no retry.
            }
            value = net.getProperty(RETRY_ALL_METHODS);
        }
        return value != null && (value.isEmpty() || Boolean.parseBoolean(value));
    }

    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
        if (!WriteFencing.isWrite(request.method())) {
            return http.send(request, handler);
        }
        // Without Expect: 100-continue. The gateway refuses such a write with its final answer and no
        // 100, which java.net.http on JDK 17 never returns from; a refused body is dropped unparsed.
        HttpRequest.Builder fenced = HttpRequest.newBuilder(request, (name, value) -> true).expectContinue(false);
        // Before the check: the client looks the name up only as it connects, which no timeout bounds.
        lookup.before(request.uri().getHost());
        for (Map.Entry<String, String> header : fencing.headersForWrite().entrySet()) {
            fenced.setHeader(header.getKey(), header.getValue());
        }
        // Whatever the JDK read of its retry property as this JVM made its first request: one attempt.
        OneAttemptBody body = new OneAttemptBody(request.bodyPublisher().orElseGet(HttpRequest.BodyPublishers::noBody));
        fenced.method(request.method(), body);
        // The body is read on the client's own threads: the refusal is only noted there, and the guard
        // is tripped here, on the caller's thread, which interruptOnLoss then leaves alone.
        AtomicReference<Refused> refused = new AtomicReference<>();
        HttpResponse<T> response;
        try {
            response = sendNotingRefusal(fenced.build(), handler, refused);
        } catch (IOException e) {
            if (body.refusedAResend()) {
                throw new IOException(request.method() + " " + request.uri().getPath() + ": the connection closed before an"
                        + " answer; the write may or may not have been applied, and was not sent again (expected "
                        + RETRY_ALL_METHODS + " unset when this JVM made its first request; it was set then, so"
                        + " java.net.http went to send the write again without a check of the lease)", e);
            }
            throw e;
        }
        Refused refusal = refused.get();
        if (refusal != null) {
            throw fencing.fencedOut(refusal.refusal(), request.method() + " " + request.uri().getPath() + ": " + refusal.body(), null);
        }
        return response;
    }

    private <T> HttpResponse<T> sendNotingRefusal(HttpRequest fenced, HttpResponse.BodyHandler<T> handler, AtomicReference<Refused> refused)
            throws IOException, InterruptedException {
        return http.send(fenced, info -> info.statusCode() != FenceRefusal.STATUS
                ? handler.apply(info)
                : HttpResponse.BodySubscribers.mapping(HttpResponse.BodySubscribers.ofByteArray(), body -> {
                    String text = new String(body, StandardCharsets.UTF_8);
                    Optional<FenceRefusal> refusal = FenceRefusal.inBody(text);
                    if (refusal.isPresent()) {
                        refused.set(new Refused(refusal.get(), text));
                        return null;
                    }
                    return replay(handler.apply(info), body);
                }));
    }

    /** Hands a body already read to the caller's subscriber, as if it came off the wire. */
    private static <T> T replay(HttpResponse.BodySubscriber<T> subscriber, byte[] body) {
        subscriber.onSubscribe(new Flow.Subscription() {
            private boolean done;

            @Override
            public void request(long n) {
                if (!done && n > 0) {
                    done = true;
                    subscriber.onNext(List.of(ByteBuffer.wrap(body)));
                    subscriber.onComplete();
                }
            }

            @Override
            public void cancel() {
                done = true;
            }
        });
        return subscriber.getBody().toCompletableFuture().join();
    }
}
