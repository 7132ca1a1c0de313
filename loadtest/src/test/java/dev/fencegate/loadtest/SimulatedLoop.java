package dev.fencegate.loadtest;

import java.util.Comparator;
import java.util.PriorityQueue;

/** A single-threaded event loop on a simulated clock: tasks run in time order, instantly. */
final class SimulatedLoop implements LoopClock {
    private record Event(long at, long sequence, Runnable task) {
    }

    private final PriorityQueue<Event> events =
            new PriorityQueue<>(Comparator.comparingLong(Event::at).thenComparingLong(Event::sequence));
    private long now;
    private long sequence;

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public void runAt(long nanos, Runnable task) {
        events.add(new Event(Math.max(nanos, now), sequence++, task));
    }

    void runUntil(long nanos) {
        while (!events.isEmpty() && events.peek().at() <= nanos) {
            Event event = events.poll();
            now = event.at();
            event.task().run();
        }
        now = nanos;
    }
}
