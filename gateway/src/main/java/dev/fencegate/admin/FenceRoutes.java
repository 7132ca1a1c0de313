package dev.fencegate.admin;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.FencingHeaders;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /fences/{resource}} reads a fence; {@code POST /fences/{resource}?token=N} raises it,
 * never lowers it. Only a key writes are checked against is served, as the data port names it
 * (store kind, job scopes), or a raise would answer as if it fenced an object and fence nothing. Both need the admin token when one is set. Every raise is logged at WARN on
 * {@code fencegate.audit}: who, which resource, from what to what.
 */
final class FenceRoutes {

    static final String PREFIX = "/fences/";
    private static final Logger audit = LoggerFactory.getLogger("fencegate.audit");

    private final FenceAdmin fences;
    private final AdminAuth auth;
    private final ClaimRules claims;

    FenceRoutes(FenceAdmin fences, AdminAuth auth, ClaimRules claims) {
        this.fences = fences;
        this.auth = auth;
        this.claims = claims;
    }

    boolean requiresToken() {
        return auth.requiresToken();
    }

    AdminResponse handle(AdminRequest request) {
        if (!auth.permits(request)) {
            audit.warn("admin request refused from {}: {} {} without a valid bearer token", request.remoteAddress(),
                    request.method(), request.rawPath());
            return AdminResponse.json(401, Map.of("error", "authorization: missing or wrong (expected: Bearer <admin token>)"))
                    .withHeader("WWW-Authenticate", "Bearer realm=\"fencegate-admin\"");
        }
        ResourceSegment.Parse parsed = ResourceSegment.parse(request.rawPath().substring(PREFIX.length()));
        if (parsed instanceof ResourceSegment.Parse.Invalid invalid) {
            return AdminResponse.json(400, Map.of("error", invalid.message()));
        }
        ResourceKey resource = ((ResourceSegment.Parse.Valid) parsed).key();
        Optional<String> unchecked = claims.whyNoWriteIsFencedUnder(resource);
        if (unchecked.isPresent()) {
            return AdminResponse.json(400, Map.of("error", "resource: " + unchecked.get()));
        }
        try {
            return switch (request.method()) {
                case "GET", "HEAD" -> read(resource);
                case "POST" -> raise(resource, request);
                default -> AdminResponse.json(405, Map.of("error", "method: " + request.method() + " (expected: GET or POST)"))
                        .withHeader("Allow", "GET, HEAD, POST");
            };
        } catch (FenceStoreUnavailableException e) {
            return AdminResponse.json(503, Map.of("error", "fence store unavailable: " + e.getMessage()))
                    .withHeader("Retry-After", "1");
        }
    }

    private AdminResponse read(ResourceKey resource) {
        Optional<Fence> fence = fences.read(resource);
        return AdminResponse.json(fence.isPresent() ? 200 : 404, describe(resource, fence));
    }

    private AdminResponse raise(ResourceKey resource, AdminRequest request) {
        FencingHeaders.TokenParse parsed = FencingHeaders.token(request.parameter("token"));
        if (parsed instanceof FencingHeaders.TokenParse.Refused) {
            String given = request.parameter("token").isEmpty() ? "missing" : "'" + String.join(",", request.parameter("token")) + "'";
            return AdminResponse.json(400, Map.of("error", "token: " + given
                    + " (expected: one ?token=N, a decimal from 1 to " + Long.MAX_VALUE + " without sign or leading zero)"));
        }
        FencingToken token = ((FencingHeaders.TokenParse.Valid) parsed).token();
        FenceDecision decision = fences.raise(resource, token);
        return switch (decision.kind()) {
            case ADMITTED, DRAINING -> raised(resource, token, decision, request.remoteAddress());
            case STALE, REUSED -> refusedToLower(resource, token, decision, request.remoteAddress());
            case UNAVAILABLE -> throw new FenceStoreUnavailableException(((FenceDecision.Unavailable) decision).detail());
            case MISSING_TOKEN, MALFORMED_TOKEN, MALFORMED_HOLDER ->
                    throw new IllegalStateException("the fence store judged a parsed claim as " + decision);
        };
    }

    /** Draining counts as raised: the row went up; writes admitted earlier with lower tokens may still land. */
    private AdminResponse raised(ResourceKey resource, FencingToken token, FenceDecision decision, String who) {
        Optional<FencingToken> previous = decision instanceof FenceDecision.Admitted admitted ? admitted.previous() : Optional.empty();
        boolean unchanged = previous.isPresent() && previous.get().equals(token);
        if (unchanged) {
            audit.info("admin {} asked to raise the fence of {} to {}; it was already there", who, resource, token);
        } else {
            audit.warn("admin {} raised the fence of {} from {} to {}", who, resource,
                    decision instanceof FenceDecision.Admitted ? previous.map(Object::toString).orElse("none") : "unknown", token);
        }
        Map<String, Object> body = describe(resource, fences.read(resource));
        body.put("previous", previous.map(FencingToken::value).orElse(null));
        return AdminResponse.json(200, body);
    }

    private AdminResponse refusedToLower(ResourceKey resource, FencingToken token, FenceDecision decision, String who) {
        Fence current = decision instanceof FenceDecision.Stale stale ? stale.current() : ((FenceDecision.Reused) decision).current();
        audit.warn("admin {} tried to lower the fence of {} from {} to {}; refused", who, resource, current.token(), token);
        Map<String, Object> body = describe(resource, Optional.of(current));
        body.put("error", "token: " + token + " (expected: at least " + current.token()
                + ", the current fence; a fence is never lowered)");
        return AdminResponse.json(409, body);
    }

    private static Map<String, Object> describe(ResourceKey resource, Optional<Fence> fence) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("resource", resource.value());
        body.put("token", fence.map(f -> f.token().value()).orElse(null));
        body.put("holder", fence.flatMap(Fence::holder).map(Holder::value).orElse(null));
        return body;
    }
}
