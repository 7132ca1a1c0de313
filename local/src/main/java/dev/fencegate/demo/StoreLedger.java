package dev.fencegate.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The objects, the apply log and the counters, shared by every connection of one store. */
final class StoreLedger {

    private final Map<String, StoredObject> objects = new ConcurrentHashMap<>();
    private final List<AppliedWrite> log = new ArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger connections = new AtomicInteger();
    private long lastSequence;

    /** Stores the body; returns true when the path held no object before. */
    synchronized boolean put(WriteRequest write) {
        StoredObject previous = objects.put(write.path(), new StoredObject(write.body(), write.contentType()));
        record(write);
        return previous == null;
    }

    /** Removes the object; returns false, and logs nothing, when there was none. */
    synchronized boolean delete(WriteRequest write) {
        if (objects.remove(write.path()) == null) {
            return false;
        }
        record(write);
        return true;
    }

    // Callers hold the lock, so sequence order, log order and map-change order are one order.
    private void record(WriteRequest write) {
        log.add(new AppliedWrite(++lastSequence, write.method(), write.path(), write.fencingToken(),
                write.fencingHolder(), write.requestId(), write.body().length, System.nanoTime()));
    }

    Optional<StoredObject> get(String path) {
        return Optional.ofNullable(objects.get(path));
    }

    synchronized List<AppliedWrite> applied() {
        return List.copyOf(log);
    }

    synchronized void clear() {
        objects.clear();
        log.clear();
        requests.set(0);
    }

    void countRequest() {
        requests.incrementAndGet();
    }

    int requestCount() {
        return requests.get();
    }

    void countConnection() {
        connections.incrementAndGet();
    }

    int connectionsAccepted() {
        return connections.get();
    }
}
