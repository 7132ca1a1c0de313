package dev.fencegate.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Puts the lease's fencing headers on every write an AWS SDK v2 client sends, and turns the
 * gateway's refusal, in S3 XML or problem+json, into a {@link FencedOutException} that trips the
 * guard. The headers are added in {@code modifyHttpRequest}, which runs before the request is
 * signed, so SigV4 covers them.
 * A write attempted after the guard tripped is not sent, nor is a retry of one (the guard is checked
 * before every attempt). Either way the SDK's exception carries the {@link LeaseLostException}:
 * {@code LeaseLostException.in(e)} finds it. The store's host name is looked up before the check,
 * so the connection finds it in the JVM's address cache. An attempt checked here may still wait for
 * a pooled connection: keep the HTTP client's connection acquisition timeout below the lease's margin.
 *
 * <pre>{@code
 * S3Client s3 = S3Client.builder()...
 *         .overrideConfiguration(o -> o.addExecutionInterceptor(new FencingInterceptor(WriteFencing.of(guard))))
 *         .build();
 * }</pre>
 */
public final class FencingInterceptor implements ExecutionInterceptor {

    private static final String PROBLEM_JSON = "application/problem+json";
    private static final int PROBLEM_BODY_LIMIT = 64 * 1024;
    private static final ExecutionAttribute<String> PROBLEM_BODY = new ExecutionAttribute<>("FencegateProblemBody");

    private final WriteFencing fencing;
    private final NameLookup lookup;

    public FencingInterceptor(WriteFencing fencing) {
        this(fencing, NameLookup.SYSTEM);
    }

    FencingInterceptor(WriteFencing fencing, NameLookup lookup) {
        this.fencing = fencing;
        this.lookup = lookup;
    }

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        SdkHttpRequest request = context.httpRequest();
        if (!WriteFencing.isWrite(request.method().name())) {
            return request;
        }
        SdkHttpRequest.Builder fenced = request.toBuilder();
        for (Map.Entry<String, String> header : fencing.headersForWrite().entrySet()) {
            fenced.putHeader(header.getKey(), header.getValue());
        }
        return fenced.build();
    }

    /**
     * Checks the guard again on every attempt, just before it is sent: the SDK retries a write (a
     * 503, a dropped connection) with the headers it signed once, and a retry after the lease was
     * lost must not leave. The {@link LeaseLostException} thrown here is not one the SDK retries.
     */
    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        if (WriteFencing.isWrite(context.httpRequest().method().name())) {
            // Before the check: the HTTP client looks the name up as it connects, and its connection
            // timeout does not bound the lookup.
            lookup.before(context.httpRequest().host());
            // Checks the guard, as it gives the headers this lease's writes carry.
            carriesOnlyThese(context.httpRequest(), fencing.headersForWrite());
        }
    }

    /**
     * Headers the client's configuration sets ({@code overrideConfiguration(o -> o.putHeader(...))})
     * are added after {@code modifyHttpRequest}, with names as given: a fencing header of the caller's
     * would go out beside this lease's, or in its place. Such a write is not sent.
     */
    private static void carriesOnlyThese(SdkHttpRequest request, Map<String, String> expected) {
        for (String name : List.of(WriteFencing.TOKEN, WriteFencing.HOLDER, WriteFencing.SIGNATURE)) {
            List<String> sent = request.headers().entrySet().stream()
                    .filter(header -> header.getKey().equalsIgnoreCase(name))
                    .flatMap(header -> header.getValue().stream())
                    .toList();
            List<String> wanted = expected.containsKey(name) ? List.of(expected.get(name)) : List.of();
            if (!sent.equals(wanted)) {
                // A signature is a credential for its token: its values are counted, not shown.
                boolean secret = name.equals(WriteFencing.SIGNATURE);
                throw new IllegalStateException("the write was not sent: it carries " + name + " "
                        + (secret ? sent.size() + " time(s)" : sent) + ", where this lease's fencing gives "
                        + (secret ? wanted.size() + " value(s)" : wanted) + "; the client's configuration sets a fencing"
                        + " header of its own (leave fencing headers to the interceptor)");
            }
        }
    }

    /**
     * Trips the guard at the gateway's refusal. The SDK insists that the exception keeps its class,
     * so the caller still catches an {@code S3Exception}; its cause is the {@link FencedOutException},
     * found with {@link LeaseLostException#in(Throwable)}.
     */
    @Override
    public Throwable modifyException(Context.FailedExecution context, ExecutionAttributes attributes) {
        Throwable failure = context.exception();
        if (failure instanceof AwsServiceException refused && refused.statusCode() == FenceRefusal.STATUS
                && refused.awsErrorDetails() != null) {
            Optional<FenceRefusal> refusal = FenceRefusal.ofS3Code(refused.awsErrorDetails().errorCode());
            String detail = refused.awsErrorDetails().errorMessage();
            String problem = attributes.getAttribute(PROBLEM_BODY);
            if (refusal.isEmpty() && problem != null) {
                refusal = FenceRefusal.inBody(problem);
                detail = problem;
            }
            if (refusal.isPresent()) {
                FencedOutException fencedOut = fencing.fencedOut(refusal.get(), detail, null);
                return refused.toBuilder().cause(fencedOut).build();
            }
        }
        return failure;
    }

    /**
     * Keeps the body of a write's 412 problem+json answer for {@link #modifyException}. The gateway
     * answers in problem+json, not S3 XML, a request that carries neither an S3 signature nor
     * {@code x-amz-content-sha256}, as an anonymous client's bodiless write (DeleteObject); the SDK
     * finds no error code in it and keeps no body, so its refusal is read from the body here.
     */
    @Override
    public Optional<InputStream> modifyHttpResponseContent(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
        Optional<InputStream> content = context.responseBody();
        if (context.httpResponse().statusCode() != FenceRefusal.STATUS || content.isEmpty()
                || !WriteFencing.isWrite(context.httpRequest().method().name())
                || !context.httpResponse().firstMatchingHeader("Content-Type")
                        .map(type -> type.toLowerCase(Locale.ROOT).startsWith(PROBLEM_JSON)).orElse(false)) {
            return content;
        }
        InputStream in = content.get();
        try {
            // The gateway's problem body is a few hundred bytes: a longer one is not the gateway's,
            // and what lies past the bound is left in the stream for the SDK.
            byte[] body = in.readNBytes(PROBLEM_BODY_LIMIT);
            attributes.putAttribute(PROBLEM_BODY, new String(body, StandardCharsets.UTF_8));
            return Optional.of(new SequenceInputStream(new ByteArrayInputStream(body), in));
        } catch (IOException e) {
            throw new UncheckedIOException("reading a write's 412 answer", e);
        }
    }
}
