package dev.fencegate.loadtest;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntToLongFunction;
import org.HdrHistogram.Histogram;

/** A lane whose target answers each request after a scripted service time. */
final class ScriptedLane implements Lane {
    private final Shard shard;
    private final SimulatedLoop loop;
    private final IntToLongFunction serviceNanosOfRequest;
    final List<long[]> intendedAndSent = new ArrayList<>();
    /** What a closed-loop tool would record: latency from the actual send. */
    final Histogram fromSendMicros = new Histogram(3);
    private Exchange inFlight;
    private int sent;

    ScriptedLane(Shard shard, SimulatedLoop loop, IntToLongFunction serviceNanosOfRequest) {
        this.shard = shard;
        this.loop = loop;
        this.serviceNanosOfRequest = serviceNanosOfRequest;
    }

    @Override
    public void send(long intendedNanos) {
        long sentAt = loop.nanoTime();
        intendedAndSent.add(new long[] {intendedNanos, sentAt});
        Exchange exchange = new Exchange(intendedNanos, false);
        inFlight = exchange;
        loop.runAt(sentAt + serviceNanosOfRequest.applyAsLong(sent++), () -> {
            if (inFlight != exchange) {
                return;
            }
            inFlight = null;
            fromSendMicros.recordValue((loop.nanoTime() - sentAt) / 1_000);
            shard.answered(exchange, 200);
            shard.laneReady(this);
        });
    }

    @Override
    public Optional<Exchange> stop() {
        Optional<Exchange> left = Optional.ofNullable(inFlight);
        inFlight = null;
        return left;
    }
}
