package dev.fencegate.demo;

/** A complete write as received, copied out of Netty buffers so it can wait out its delay. */
record WriteRequest(
        String method,
        String path,
        String fencingToken,
        String fencingHolder,
        String requestId,
        String contentType,
        byte[] body) {
}
