package dev.fencegate.proxy;

import dev.fencegate.fence.FenceChecker;
import dev.fencegate.fence.UploadOwners;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.observability.AccessLog;
import dev.fencegate.observability.GatewayMetrics;

/** What every connection of one gateway shares. */
record GatewayRuntime(FenceGate fences, StoreConnections storeConnections, GatewayMetrics metrics, AccessLog accessLog,
                      ClaimRules claims, String upstreamPathPrefix, long upstreamTimeoutMillis, UploadOwners uploads) {

    GatewayRuntime(FenceChecker fences, StoreConnections storeConnections, GatewayMetrics metrics, AccessLog accessLog,
                   ClaimRules claims, String upstreamPathPrefix, long upstreamTimeoutMillis, UploadOwners uploads) {
        this(FenceGate.of(fences), storeConnections, metrics, accessLog, claims, upstreamPathPrefix, upstreamTimeoutMillis, uploads);
    }

    RequestRecord record(String method, String path) {
        return new RequestRecord(metrics, accessLog, method, path);
    }
}
