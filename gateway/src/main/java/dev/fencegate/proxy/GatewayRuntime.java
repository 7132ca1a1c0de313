package dev.fencegate.proxy;

import dev.fencegate.fence.FenceChecker;
import dev.fencegate.observability.GatewayMetrics;

/** What every connection of one gateway shares. */
record GatewayRuntime(FenceChecker fences, StoreConnections storeConnections, GatewayMetrics metrics,
                      String upstreamPathPrefix, long upstreamTimeoutMillis) {
}
