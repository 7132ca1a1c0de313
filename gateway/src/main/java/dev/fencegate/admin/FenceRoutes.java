package dev.fencegate.admin;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.FencingHeaders;
import dev.fencegate.observability.ClientText;
import dev.fencegate.observability.RefusalLog;
import java.time.Duration;
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
    /** How long a raise waits for writes below it, admitted earlier through any instance, to end. */
    static final Duration SETTLE_WITHIN = Duration.ofSeconds(5);
    private static final long FIRST_RETRY_MILLIS = 2;
    private static final long MAX_RETRY_MILLIS = 100;
    private static final Logger audit = LoggerFactory.getLogger("fencegate.audit");
    /** Refusals of requests without the token: whoever can connect sends those, as fast as they like. */
    private final RefusalLog refusals = new RefusalLog(audit);

    private final FenceAdmin fences;
    private final AdminAuth auth;
    private final ClaimRules claims;
    private final Duration settleWithin;

    FenceRoutes(FenceAdmin fences, AdminAuth auth, ClaimRules claims) {
        this(fences, auth, claims, SETTLE_WITHIN);
    }

    FenceRoutes(FenceAdmin fences, AdminAuth auth, ClaimRules claims, Duration settleWithin) {
        this.fences = fences;
        this.auth = auth;
        this.claims = claims;
        this.settleWithin = settleWithin;
    }

    boolean requiresToken() {
        return auth.requiresToken();
    }

    AdminResponse handle(AdminRequest request) {
        if (!auth.permits(request)) {
            refusals.warn("admin request refused from " + request.remoteAddress() + ": " + ClientText.shown(request.method())
                    + " " + ClientText.shown(request.rawPath()) + " without a valid bearer token");
            return AdminResponse.json(401, Map.of("error", "authorization: missing or wrong (expected: Bearer <admin token>)"))
                    .withHeader("WWW-Authenticate", "Bearer realm=\"fencegate-admin\"");
        }
        ResourceSegment.Parse parsed = ResourceSegment.parse(request.rawPath().substring(PREFIX.length()));
        if (parsed instanceof ResourceSegment.Parse.Invalid invalid) {
            return AdminResponse.json(400, Map.of("error", invalid.message()));
        }
        ResourceKey resource = ((ResourceSegment.Parse.Valid) parsed).key();
        Optional<String> database = fences.databaseRefusal();
        if (database.isPresent()) {
            // No Retry-After: it holds until this instance is restarted.
            return AdminResponse.json(503, Map.of("error", "fence store unavailable: " + database.get()));
        }
        Optional<String> naming = fences.namingRefusal();
        if (naming.isPresent()) {
            // Which key writes are checked against is the recorded naming's to say, not this instance's:
            // a 404 would say the object has no fence, a 400 would name the wrong key.
            return AdminResponse.json(503, Map.of("error", "this instance cannot tell which fence writes to " + resource
                    + " are checked against: " + naming.get())).withHeader("Retry-After", "1");
        }
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
        Optional<FencingToken> before = readBefore(resource);
        FenceDecision decision = fences.raise(resource, token);
        return switch (decision.kind()) {
            case ADMITTED -> raised(resource, token, decision, before, request.remoteAddress(),
                    fences.writesBelowInFlight(resource, token) && !settled(resource, token));
            case DRAINING -> raised(resource, token, decision, before, request.remoteAddress(), !settled(resource, token));
            case STALE, REUSED -> refusedToLower(resource, token, decision, request.remoteAddress());
            case UNAVAILABLE -> throw new FenceStoreUnavailableException(((FenceDecision.Unavailable) decision).detail());
            case MISSING_TOKEN, MALFORMED_TOKEN, MALFORMED_HOLDER ->
                    throw new IllegalStateException("the fence store judged a parsed claim as " + decision);
        };
    }

    /**
     * After a raise that found writes below it still possible through some instance (one that
     * held the old fence may admit from memory until it hears of the raise, and this one's own
     * writes sent below it may not have been answered yet): asks again, as a write's raise does,
     * until none is, or {@link #settleWithin} has passed. A fence raised
     * higher meanwhile is asked about at its own value, which changes nothing and answers whether
     * anything below it, so below this raise, may still go out. A store that cannot be asked
     * leaves it unsettled. Blocking: the admin port runs the fence endpoints on threads of their own.
     */
    private boolean settled(ResourceKey resource, FencingToken token) {
        long deadline = System.nanoTime() + settleWithin.toNanos();
        long retryMillis = FIRST_RETRY_MILLIS;
        FencingToken asking = token;
        while (System.nanoTime() + retryMillis * 1_000_000 - deadline < 0) {
            try {
                Thread.sleep(retryMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            FenceDecision again;
            try {
                again = fences.raise(resource, asking);
            } catch (FenceStoreUnavailableException e) {
                return false;
            }
            switch (again.kind()) {
                case ADMITTED -> {
                    // This instance's own writes below this raise: those between it and a higher fence asked about are not.
                    if (!fences.writesBelowInFlight(resource, token)) {
                        return true;
                    }
                    retryMillis = Math.min(retryMillis * 2, MAX_RETRY_MILLIS);
                }
                case STALE -> asking = ((FenceDecision.Stale) again).current().token();
                case DRAINING -> retryMillis = Math.min(retryMillis * 2, MAX_RETRY_MILLIS);
                case REUSED, UNAVAILABLE, MISSING_TOKEN, MALFORMED_TOKEN, MALFORMED_HOLDER -> {
                    return false;
                }
            }
        }
        return false;
    }

    /**
     * The row went up either way. 200 once no write below the new fence can still be admitted or
     * sent through any instance; 202, {@code "draining":true}, when some may still be after
     * {@link #settleWithin}: writes admitted earlier with lower tokens may yet land, and an instance
     * that has not heard of the raise may admit more until it does.
     */
    /**
     * The fence just before a raise, for the answer's {@code "previous"} when the raise itself
     * cannot tell (it had to wait); empty when there is none or it cannot be read, which does not
     * stop the raise.
     */
    private Optional<FencingToken> readBefore(ResourceKey resource) {
        try {
            return fences.read(resource).map(Fence::token);
        } catch (FenceStoreUnavailableException e) {
            return Optional.empty();
        }
    }

    private AdminResponse raised(ResourceKey resource, FencingToken token, FenceDecision decision, Optional<FencingToken> before,
                                 String who, boolean draining) {
        // The raise's own word where it has one; otherwise the fence read just before it (a raise
        // admitted once an expired registration's rows were removed cannot say what it replaced).
        Optional<FencingToken> previous = decision instanceof FenceDecision.Admitted admitted
                && admitted.previous().isPresent() ? admitted.previous() : before;
        boolean unchanged = previous.isPresent() && previous.get().equals(token);
        if (unchanged) {
            audit.info("admin {} asked to raise the fence of {} to {}; it was already there", who, resource, token);
        } else {
            audit.warn("admin {} raised the fence of {} from {} to {}", who, resource, decision instanceof FenceDecision.Admitted
                    ? previous.map(Object::toString).orElse("none") : previous.map(Object::toString).orElse("unknown"), token);
        }
        Map<String, Object> body;
        try {
            body = describe(resource, fences.read(resource));
        } catch (FenceStoreUnavailableException e) {
            // The raise committed; only reading it back failed: say what was raised, and that it is not known settled.
            body = describe(resource, Optional.of(new Fence(resource, token, Optional.empty())));
            draining = true;
        }
        body.put("previous", previous.map(FencingToken::value).orElse(null));
        if (draining) {
            audit.warn("admin {} raise of {} to {}: writes below it may still be in flight after {} ms", who, resource, token,
                    settleWithin.toMillis());
            body.put("draining", true);
            return AdminResponse.json(202, body);
        }
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
