package dev.fencegate.loadtest;

import java.util.BitSet;
import java.util.random.RandomGenerator;

/**
 * Plans the requests of one connection. Connection {@code c} of {@code n} owns resources
 * {@code c, c+n, c+2n, ...}, so a resource's writes travel in order on one connection and a
 * bumped token cannot overtake its predecessor and turn it stale. A stale write goes only to
 * a resource this connection has already written with its current token: before its first
 * write a resource has no fence, and any token is admitted.
 */
final class RequestPlanner {
    private final TokenBook book;
    private final TokenPattern pattern;
    private final double share;
    private final boolean reads;
    private final RandomGenerator random;
    private final int first;
    private final int step;
    private final BitSet written = new BitSet();
    private int cursor;

    RequestPlanner(TokenBook book, TokenPattern pattern, double share, boolean reads,
                   RandomGenerator random, int connection, int connections) {
        this.book = book;
        this.pattern = pattern;
        this.share = share;
        this.reads = reads;
        this.random = random;
        boolean ownSlice = pattern != TokenPattern.HOT && book.resources() >= connections;
        this.first = pattern == TokenPattern.HOT ? 0 : connection % book.resources();
        this.step = ownSlice ? connections : book.resources();
        this.cursor = first;
    }

    PlannedRequest next() {
        int resource = nextResource();
        String path = book.path(resource);
        if (reads) {
            return PlannedRequest.read(path);
        }
        return switch (pattern) {
            case STEADY, HOT -> current(resource, path);
            case BUMPS -> new PlannedRequest(path,
                    random.nextDouble() < share ? book.bump(resource) : book.current(resource), false);
            case STALE -> random.nextDouble() < share && written.get(resource)
                    ? new PlannedRequest(path, book.current(resource) - 1, true)
                    : current(resource, path);
        };
    }

    private PlannedRequest current(int resource, String path) {
        written.set(resource);
        return new PlannedRequest(path, book.current(resource), false);
    }

    private int nextResource() {
        int resource = cursor;
        int following = cursor + step;
        cursor = following < book.resources() ? following : first;
        return resource;
    }
}
