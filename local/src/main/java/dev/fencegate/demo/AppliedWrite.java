package dev.fencegate.demo;

/**
 * One write the store applied, in apply order.
 *
 * @param sequence       1, 2, 3... in the order the object map changed, across all connections
 * @param method         the HTTP method, e.g. {@code PUT}
 * @param path           the request path without its query string
 * @param fencingToken   the {@code Fencing-Token} header as received, or null
 * @param fencingHolder  the {@code Fencing-Holder} header as received, or null
 * @param requestId      the {@code X-Request-Id} header as received, or null: lets a test match answers to applies
 * @param bodyLength     bytes in the request body
 * @param appliedAtNanos {@link System#nanoTime()} when the map changed
 */
public record AppliedWrite(
        long sequence,
        String method,
        String path,
        String fencingToken,
        String fencingHolder,
        String requestId,
        long bodyLength,
        long appliedAtNanos) {
}
