package dev.fencegate.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Who may use the admin port's fence endpoints: anyone who can connect, when the port is bound
 * to loopback and no token is set (config refuses a non-loopback port without one); otherwise
 * only a request carrying {@code Authorization: Bearer <token>}.
 */
public final class AdminAuth {

    private static final String BEARER = "Bearer ";

    private final Optional<byte[]> token;

    private AdminAuth(Optional<byte[]> token) {
        this.token = token;
    }

    /** No token: only safe on a loopback port, which {@code GatewayConfig} enforces. */
    public static AdminAuth loopbackOnly() {
        return new AdminAuth(Optional.empty());
    }

    public static AdminAuth bearer(String token) {
        if (token == null || token.isEmpty()) {
            throw new IllegalArgumentException("admin token: empty (expected a token)");
        }
        return new AdminAuth(Optional.of(token.getBytes(StandardCharsets.UTF_8)));
    }

    public static AdminAuth of(Optional<String> token) {
        return token.map(AdminAuth::bearer).orElseGet(AdminAuth::loopbackOnly);
    }

    /** Whether requests must carry the bearer token. */
    public boolean requiresToken() {
        return token.isPresent();
    }

    public boolean permits(AdminRequest request) {
        if (token.isEmpty()) {
            return true;
        }
        Optional<String> header = request.authorization();
        if (header.isEmpty() || !header.get().regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        byte[] offered = header.get().substring(BEARER.length()).trim().getBytes(StandardCharsets.UTF_8);
        // Constant time, so the response time does not tell how much of a guess was right.
        return MessageDigest.isEqual(offered, token.get());
    }
}
