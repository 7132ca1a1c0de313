package dev.fencegate.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencegate.fence.FenceDecision;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** An RFC 9457 problem body; refusals by the fence name the resource, the token and the fence. */
public record Problem(Outcome outcome, String detail, Map<String, Object> extensions) {

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final ObjectMapper JSON = new ObjectMapper();

    public static Problem of(Outcome outcome, String detail) {
        return new Problem(outcome, detail, Map.of());
    }

    public static Problem of(FenceDecision decision) {
        Outcome outcome = Outcome.of(decision);
        Map<String, Object> extensions = new LinkedHashMap<>();
        String detail = switch (decision.kind()) {
            case STALE -> {
                FenceDecision.Stale stale = (FenceDecision.Stale) decision;
                describe(extensions, stale.claim().resource().value(), stale.claim().token().value(), stale.current().token().value());
                yield "token " + stale.claim().token() + " is below the fence " + stale.current().token()
                        + " for " + stale.claim().resource() + ": a newer holder has written, or an operator raised the fence";
            }
            case REUSED -> {
                FenceDecision.Reused reused = (FenceDecision.Reused) decision;
                describe(extensions, reused.claim().resource().value(), reused.claim().token().value(), reused.current().token().value());
                extensions.put("holder", reused.claim().holder().map(Object::toString).orElse(null));
                extensions.put("currentHolder", reused.current().holder().map(Object::toString).orElse(null));
                yield "token " + reused.claim().token() + " for " + reused.claim().resource() + " was granted to "
                        + reused.current().holder().orElseThrow() + ", not " + reused.claim().holder().orElseThrow()
                        + ": the token issuer handed out one number twice";
            }
            case DRAINING -> {
                FenceDecision.Draining draining = (FenceDecision.Draining) decision;
                describe(extensions, draining.claim().resource().value(), draining.claim().token().value(), draining.current().token().value());
                yield "a write to " + draining.claim().resource() + " with a token below " + draining.claim().token()
                        + " is still in flight to the store; retry later";
            }
            case MISSING_TOKEN -> "a write needs a " + HeaderNames.FENCING_TOKEN + " header";
            case MALFORMED_TOKEN -> HeaderNames.FENCING_TOKEN + ": " + ((FenceDecision.MalformedToken) decision).detail();
            case MALFORMED_HOLDER -> HeaderNames.FENCING_HOLDER + ": " + ((FenceDecision.MalformedHolder) decision).detail();
            case UNAVAILABLE -> ((FenceDecision.Unavailable) decision).detail();
            case ADMITTED -> throw new IllegalArgumentException("an admitted write has no problem body");
        };
        return new Problem(outcome, detail, extensions);
    }

    private static void describe(Map<String, Object> extensions, String resource, long token, long current) {
        extensions.put("resource", resource);
        extensions.put("token", token);
        extensions.put("currentToken", current);
    }

    public byte[] toJson() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", outcome.problemType());
        body.put("title", outcome.title());
        body.put("status", outcome.status());
        body.put("detail", detail);
        body.putAll(extensions);
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
