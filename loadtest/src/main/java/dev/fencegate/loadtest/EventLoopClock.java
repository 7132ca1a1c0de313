package dev.fencegate.loadtest;

import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;

/** A shard's clock backed by its event loop's scheduler. */
record EventLoopClock(EventLoop loop) implements LoopClock {

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public void runAt(long nanos, Runnable task) {
        loop.schedule(task, Math.max(0, nanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
}
