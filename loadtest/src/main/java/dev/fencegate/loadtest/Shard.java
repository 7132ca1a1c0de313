package dev.fencegate.loadtest;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Hands due requests to free lanes. Single-threaded: the lanes, their channels and this shard
 * share one event loop, so nothing here needs a lock. A request that finds every lane busy
 * stays in the pacing's backlog and keeps its intended time.
 */
final class Shard {
    private final LoopClock clock;
    private final List<Lane> lanes = new ArrayList<>();
    private final ArrayDeque<Lane> idle = new ArrayDeque<>();
    private Pacing pacing;
    private Recorder recorder;
    private boolean tickScheduled;
    private boolean stopped;
    private int inFlight;

    Shard(LoopClock clock) {
        this.clock = clock;
    }

    void add(Lane lane) {
        lanes.add(lane);
    }

    void start(Pacing startPacing, Recorder startRecorder) {
        this.pacing = startPacing;
        this.recorder = startRecorder;
        pump(clock.nanoTime());
    }

    void laneReady(Lane lane) {
        if (!stopped) {
            idle.addLast(lane);
            pump(clock.nanoTime());
        }
    }

    /** The lane was offered but its connection dropped before it got a request. */
    void laneLost(Lane lane) {
        idle.remove(lane);
    }

    void answered(Exchange exchange, int status) {
        inFlight--;
        if (!stopped) {
            recorder.answered(exchange, status, clock.nanoTime());
        }
    }

    void failed(Exchange exchange) {
        inFlight--;
        if (!stopped) {
            recorder.failed(exchange);
        }
    }

    void timedOut(Exchange exchange) {
        inFlight--;
        if (!stopped) {
            recorder.timedOut(exchange, clock.nanoTime());
        }
    }

    /** True once nothing is waiting and nothing is in flight. */
    boolean drained() {
        return pacing != null && inFlight == 0 && !pacing.hasDue(clock.nanoTime());
    }

    /** Stops every lane; what never got an answer is recorded as unfinished, aged until now. */
    Recorder stop() {
        long now = clock.nanoTime();
        stopped = true;
        for (Lane lane : lanes) {
            lane.stop().ifPresent(exchange -> recorder.unfinished(exchange.intendedNanos(), now));
        }
        if (pacing != null) {
            for (long intended : pacing.overdue(now)) {
                recorder.unfinished(intended, now);
            }
        }
        return recorder;
    }

    private void pump(long now) {
        if (pacing == null || stopped) {
            return;
        }
        while (!idle.isEmpty() && pacing.hasDue(now)) {
            inFlight++;
            idle.pollFirst().send(pacing.take(now));
        }
        if (!idle.isEmpty() && !tickScheduled && pacing.nextWakeNanos() != Pacing.NEVER) {
            tickScheduled = true;
            clock.runAt(pacing.nextWakeNanos(), this::tick);
        }
    }

    private void tick() {
        tickScheduled = false;
        pump(clock.nanoTime());
    }
}
