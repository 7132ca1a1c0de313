package dev.fencegate.proxy;

import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.UploadOwners;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.observability.AccessLog;
import dev.fencegate.observability.GatewayMetrics;
import java.util.Optional;

/**
 * What every connection of one gateway shares. {@code storeHost}: the store every request is
 * addressed to by its own Host, in place of the client's, or empty where the store gets the
 * client's (see {@link StoreHost}).
 */
record GatewayRuntime(FenceGate fences, StoreConnections storeConnections, GatewayMetrics metrics, AccessLog accessLog,
                      ClaimRules claims, String upstreamPathPrefix, Optional<StoreHost.Upstream> storeHost, long upstreamTimeoutMillis,
                      UploadOwners uploads) {

    GatewayRuntime(FenceChecker fences, StoreConnections storeConnections, GatewayMetrics metrics, AccessLog accessLog,
                   ClaimRules claims, String upstreamPathPrefix, Optional<StoreHost.Upstream> storeHost, long upstreamTimeoutMillis,
                   UploadOwners uploads) {
        this(FenceGate.of(fences), storeConnections, metrics, accessLog, claims, upstreamPathPrefix, storeHost,
                upstreamTimeoutMillis, uploads);
    }

    RequestRecord record(String method, String path) {
        return new RequestRecord(metrics, accessLog, method, path);
    }
}
