package dev.fencegate.loadtest;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Runs one load test: connects every lane first, then fixes the time windows, so connection
 * set-up is never part of the measurement. One shard per event loop, lanes spread over them;
 * each shard paces its share of the rate and its backlog waits for its own lanes, as in wrk2.
 */
public final class LoadGenerator {
    private static final long START_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private LoadGenerator() {
    }

    public static Measurement run(LoadSettings settings) throws InterruptedException {
        return run(settings, TokenBook.of(settings));
    }

    /** A run that starts from the tokens and new-object names {@code book} reached, and moves it on. */
    public static Measurement run(LoadSettings settings, TokenBook book) throws InterruptedException {
        if (!book.fits(settings)) {
            throw new IllegalArgumentException("token book of other resources than " + settings.prefix()
                    + " x " + settings.resources());
        }
        Transport transport = Transport.pick();
        EventLoopGroup group = transport.group(settings.threads());
        RequestFactory requests = new RequestFactory(settings);
        try {
            List<ShardOnLoop> shards = connect(settings, transport, group, requests, book);
            long start = System.nanoTime() + START_DELAY_NANOS;
            long measureFrom = start + settings.warmup().toNanos();
            long end = measureFrom + settings.duration().toNanos();
            for (int i = 0; i < shards.size(); i++) {
                Shard shard = shards.get(i).shard();
                Pacing pacing = settings.saturating()
                        ? new SaturationPacing(end)
                        : new FixedRatePacing(new OpenLoopSchedule(start, settings.rate(), i, shards.size()), end);
                shards.get(i).call(() -> {
                    shard.start(pacing, new Recorder(measureFrom, end));
                    return null;
                });
            }
            TimeUnit.NANOSECONDS.sleep(end - System.nanoTime());
            awaitDrained(shards, end + settings.drain().toNanos());
            return merge(settings, transport, shards);
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            requests.close();
        }
    }

    private static List<ShardOnLoop> connect(LoadSettings settings, Transport transport, EventLoopGroup group,
                                       RequestFactory requests, TokenBook book) throws InterruptedException {
        List<ShardOnLoop> shards = new ArrayList<>();
        for (int i = 0; i < settings.threads(); i++) {
            shards.add(ShardOnLoop.on(group.next()));
        }
        Bootstrap base = new Bootstrap()
                .channel(transport.channelType())
                .remoteAddress(settings.url().getHost(), settings.port())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000);
        SplittableRandom seeds = new SplittableRandom(settings.seed());
        List<ChannelFuture> connecting = new ArrayList<>();
        for (int c = 0; c < settings.connections(); c++) {
            ShardOnLoop placed = shards.get(c % shards.size());
            Shard shard = placed.shard();
            RequestPlanner planner = new RequestPlanner(book, settings.pattern(), settings.share(),
                    settings.reads(), seeds.split(), c, settings.connections());
            HttpLane lane = new HttpLane(shard, base.clone(placed.loop()), planner, requests, settings.timeout().toNanos());
            connecting.add(placed.call(() -> {
                shard.add(lane);
                return lane.connect();
            }));
        }
        for (ChannelFuture future : connecting) {
            if (!future.await(10, TimeUnit.SECONDS) || !future.isSuccess()) {
                throw new IllegalStateException("cannot connect to " + settings.url() + ": "
                        + (future.cause() == null ? "timed out after 10 s" : future.cause().getMessage()));
            }
        }
        return shards;
    }

    private static void awaitDrained(List<ShardOnLoop> shards, long deadline) throws InterruptedException {
        while (System.nanoTime() < deadline) {
            boolean drained = true;
            for (ShardOnLoop placed : shards) {
                drained &= placed.call(placed.shard()::drained);
            }
            if (drained) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private static Measurement merge(LoadSettings settings, Transport transport, List<ShardOnLoop> shards)
            throws InterruptedException {
        Histogram latency = new Histogram(3);
        Tally tally = new Tally();
        for (ShardOnLoop placed : shards) {
            Recorder recorder = placed.call(placed.shard()::stop);
            latency.add(recorder.latencyMicros());
            tally.add(recorder.tally());
        }
        return new Measurement(settings, transport.name(), latency, tally.toCounts());
    }
}
