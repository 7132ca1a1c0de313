package dev.fencegate.loadtest;

import io.netty.channel.EventLoop;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

/** A shard and the event loop it lives on; everything touching the shard goes through here. */
record ShardOnLoop(Shard shard, EventLoop loop) {

    static ShardOnLoop on(EventLoop loop) {
        return new ShardOnLoop(new Shard(new EventLoopClock(loop)), loop);
    }

    <T> T call(Callable<T> task) throws InterruptedException {
        try {
            return loop.submit(task).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("load run failed on its event loop", e.getCause());
        }
    }
}
