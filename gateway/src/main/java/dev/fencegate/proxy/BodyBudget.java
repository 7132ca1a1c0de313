package dev.fencegate.proxy;

import io.netty.util.internal.PlatformDependent;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of request bodies held whole at once, across every connection. Each body is bounded
 * on its own; this bounds them together, so that many clients each trickling a body up to its
 * limit cannot take the memory every other request needs. A body counts while it is read and
 * judged, until the reading of its keys lets go of it too; once admitted it leaves for the store at
 * the store's pace.
 */
final class BodyBudget {

    private final long capacity;
    private final AtomicLong held = new AtomicLong();

    BodyBudget(long capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected at least 1 byte)");
        }
        this.capacity = capacity;
    }

    /** A quarter of the memory Netty may allocate for buffers, and room for at least one body of {@code largestBody}. */
    static BodyBudget ofNettyMemory(int largestBody) {
        return new BodyBudget(Math.max(largestBody, PlatformDependent.maxDirectMemory() / 4));
    }

    /** Counts {@code bytes} more, unless that would pass the capacity; then counts nothing. */
    boolean tryTake(long bytes) {
        while (true) {
            long now = held.get();
            if (now + bytes > capacity) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void give(long bytes) {
        held.addAndGet(-bytes);
    }

    long capacity() {
        return capacity;
    }

    long held() {
        return held.get();
    }
}
